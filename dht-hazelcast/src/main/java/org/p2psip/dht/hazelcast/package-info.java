/**
 * The {@code hazelcast} backend: each node embeds a Hazelcast member, or with
 * {@code --dht-client} uses an existing cluster as a client, and the values
 * live in an IMap with {@code replicas - 1} synchronous backups.
 * {@link org.p2psip.dht.hazelcast.HazelcastDht} runs conditional writes as
 * entry processors on the key's owner, where the version check and the write
 * are one step, and takes versions from a flake id generator so that none is
 * ever reused for a key. Keys are steered into partitions laid out on core's
 * key placement, so the balancer finds owners without Hazelcast's hash. As the
 * open-source edition checks only a cluster name sent in clear, given a
 * cluster secret {@link org.p2psip.dht.hazelcast.HazelcastDhtProvider} admits
 * only members that prove they know it.
 */
package org.p2psip.dht.hazelcast;
