/**
 * What a node keeps on disk ({@code --data-dir}) so that the values it holds
 * survive a restart of every node at once. A backend reports each change to a
 * {@link org.p2psip.core.store.HeldValueLog} and goes on without waiting;
 * {@link org.p2psip.core.store.WriteBehindValues} writes the changes in
 * batches to an H2 MVStore file and reads the live values back at start.
 * When a batch goes is a {@link org.p2psip.core.store.FlushPolicy}, a count
 * or an age after OpenSIPS's query buffering, decided by
 * {@link org.p2psip.core.store.FlushSchedule}, which node accounting uses
 * too.
 */
package org.p2psip.core.store;
