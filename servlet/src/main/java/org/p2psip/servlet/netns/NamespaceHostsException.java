package org.p2psip.servlet.netns;

/** Why the hosts could not be made, in one line. */
public final class NamespaceHostsException extends Exception {

    private static final long serialVersionUID = 1L;

    public NamespaceHostsException(String message) {
        super(message);
    }
}
