package org.p2psip.servlet.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.p2psip.servlet.accounting.AccountingDatabase.Dialect;

/** Which database a URL names, and that its password never shows. */
class AccountingDatabaseTest {

    @Test
    void postgresqlAndH2UrlsAreTaken() {
        assertEquals(Dialect.POSTGRESQL, AccountingDatabase.parse("jdbc:postgresql://db:5432/acct?user=u").dialect());
        assertEquals(Dialect.H2, AccountingDatabase.parse("jdbc:h2:mem:acct").dialect());
        assertEquals(Dialect.POSTGRESQL, AccountingDatabase.parse(" JDBC:PostgreSQL://db/acct ").dialect());
    }

    @Test
    void otherUrlsAreRefusedWithTheFormsThatWork() {
        for (String bad : new String[]{"postgresql://db/acct", "jdbc:mysql://db/acct", "jdbc:postgresql:", "",
                "acct.db"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> AccountingDatabase.parse(bad), bad);
            assertTrue(e.getMessage().contains("jdbc:postgresql://HOST:PORT/DB"), e.getMessage());
        }
    }

    @Test
    void passwordsAreMaskedInWhatIsShown() {
        AccountingDatabase db = AccountingDatabase.parse("jdbc:postgresql://db:5432/acct?user=u&password=s3cr3t&ssl=true");
        assertEquals("jdbc:postgresql://db:5432/acct?user=u&password=***&ssl=true", db.redacted());
        assertEquals(db.redacted(), db.toString());
        assertFalse(AccountingDatabase.parse("jdbc:postgresql://u:s3cr3t@db/acct").redacted().contains("s3cr3t"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AccountingDatabase.parse("jdbc:mysql://db/acct?PASSWORD=s3cr3t"));
        assertFalse(e.getMessage().contains("s3cr3t"), e.getMessage());
    }

    @Test
    void theEmbeddedDatabaseLivesInTheDataDirectoryAndServesOtherProcessesOnLoopback() {
        AccountingDatabase db = AccountingDatabase.embedded(Path.of("data"));
        assertEquals(Dialect.H2, db.dialect());
        assertEquals("jdbc:h2:file:" + Path.of("data").toAbsolutePath().resolve("accounting") + ";AUTO_SERVER=TRUE",
                db.url());
        assertTrue(db.existingOnly().url().endsWith(";IFEXISTS=TRUE"));
        assertEquals("127.0.0.1", System.getProperty(LoopbackH2Server.PROPERTY));
    }
}
