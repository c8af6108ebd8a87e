package org.p2psip.balancer;

/** The balancer could not start; the message is one line fit for the command line (busy port, bad host). */
public final class BalancerStartException extends Exception {

    public BalancerStartException(String message) {
        super(message);
    }
}
