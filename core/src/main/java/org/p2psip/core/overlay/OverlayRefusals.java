package org.p2psip.core.overlay;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one transport refused — handshakes, frames and datagrams that did not
 * authenticate or were not fresh — counted, with the first refusal from each
 * remote host logged and later ones only counted, so a misconfigured or
 * hostile peer cannot flood the log.
 */
final class OverlayRefusals {

    private static final Logger LOG = LoggerFactory.getLogger(OverlayRefusals.class);
    /** Past this many hosts, refusals are only counted (the set must not grow without bound either). */
    private static final int MAX_LOGGED_HOSTS = 1024;

    private final Set<String> loggedHosts = ConcurrentHashMap.newKeySet();
    private final AtomicLong refused = new AtomicLong();

    void refused(SocketAddress from, String what) {
        refused.incrementAndGet();
        String host = hostOf(from);
        if (loggedHosts.size() < MAX_LOGGED_HOSTS && loggedHosts.add(host)) {
            LOG.warn("refusing {} from {} (further refusals from this host are counted silently)", what, host);
        }
    }

    long count() {
        return refused.get();
    }

    private static String hostOf(SocketAddress address) {
        if (address instanceof InetSocketAddress inet) {
            return inet.getAddress() != null ? inet.getAddress().getHostAddress() : inet.getHostString();
        }
        return String.valueOf(address);
    }
}
