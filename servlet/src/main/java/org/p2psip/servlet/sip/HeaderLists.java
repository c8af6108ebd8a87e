package org.p2psip.servlet.sip;

import java.util.ArrayList;
import java.util.List;
import java.util.ListIterator;

import javax.sip.header.Header;
import javax.sip.message.Message;

/**
 * Typed access to every header of one name. JAIN-SIP 1.2's API predates
 * generics and hands out raw {@code ListIterator}s; the one unchecked
 * conversion lives here.
 */
public final class HeaderLists {

    private HeaderLists() {
    }

    /** Every {@code name} header of {@code message} in order, each value of a comma list separately. */
    @SuppressWarnings("unchecked")
    public static List<Header> of(Message message, String name) {
        List<Header> out = new ArrayList<>();
        ListIterator<Header> it = message.getHeaders(name);
        while (it != null && it.hasNext()) {
            out.add(it.next());
        }
        return out;
    }
}
