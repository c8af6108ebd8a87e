/**
 * What a node measures about itself for its operators: the latency of every
 * DHT operation, by kind and outcome, in fixed-bucket histograms that any
 * number of threads record into without locking. Time is a supplied
 * nanosecond source, so the rules are tested on a manual clock; exposing the
 * figures (Prometheus text on {@code --metrics}) is the servlet module's job.
 */
package org.p2psip.core.metrics;
