package org.p2psip.servlet.accounting;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * An H2 database that a test takes away and brings back, as a stopped and
 * restarted PostgreSQL server behaves for its clients: while it is down,
 * connections handed out before are closed under their users and new ones
 * are refused with a connection exception (SQLState 08001).
 */
final class SwitchableDatabase implements BufferedJdbcSink.ConnectionSource {

    private final String url;
    private final List<Connection> handedOut = new ArrayList<>();
    private volatile boolean down;
    private int refused;

    SwitchableDatabase(String url) {
        this.url = url;
    }

    @Override
    public synchronized Connection open() throws SQLException {
        if (down) {
            refused++;
            throw new SQLException("Connection refused (the test took the database away)", "08001");
        }
        Connection c = DriverManager.getConnection(url);
        handedOut.add(c);
        return c;
    }

    synchronized void goDown() throws SQLException {
        down = true;
        for (Connection c : handedOut) {
            c.close();
        }
        handedOut.clear();
    }

    synchronized void comeBack() {
        down = false;
    }

    /** Connections refused while down. */
    synchronized int refused() {
        return refused;
    }
}
