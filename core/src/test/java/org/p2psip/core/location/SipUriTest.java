package org.p2psip.core.location;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.OptionalInt;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SipUriTest {

    private static void assertEquivalent(String a, String b) {
        SipUri x = SipUri.parse(a);
        SipUri y = SipUri.parse(b);
        assertTrue(x.equivalentTo(y), a + " should match " + b);
        assertTrue(y.equivalentTo(x), "equivalence must be symmetric: " + b + " vs " + a);
    }

    private static void assertNotEquivalent(String a, String b) {
        SipUri x = SipUri.parse(a);
        SipUri y = SipUri.parse(b);
        assertFalse(x.equivalentTo(y), a + " should not match " + b);
        assertFalse(y.equivalentTo(x), "non-equivalence must be symmetric: " + b + " vs " + a);
    }

    /** The pairs RFC 3261 §19.1.4 lists as equivalent, and some near relatives. */
    @Nested
    class EquivalentPerRfc3261 {

        @Test
        void escapedUnreservedUserCharAndHostCaseAndTransportCaseDoNotMatter() {
            assertEquivalent("sip:%61lice@atlanta.com;transport=TCP", "sip:alice@AtLanTa.CoM;Transport=tcp");
        }

        @Test
        void parameterPresentInOnlyOneUriIsIgnored() {
            assertEquivalent("sip:carol@chicago.com", "sip:carol@chicago.com;newparam=5");
            assertEquivalent("sip:carol@chicago.com", "sip:carol@chicago.com;security=on");
            assertEquivalent("sip:carol@chicago.com;newparam=5", "sip:carol@chicago.com;security=on");
        }

        @Test
        void parameterOrderDoesNotMatterAndEscapedHeaderValueIsKept() {
            assertEquivalent("sip:biloxi.com;transport=tcp;method=REGISTER?to=sip:bob%40biloxi.com",
                    "sip:biloxi.com;method=REGISTER;transport=tcp?to=sip:bob%40biloxi.com");
        }

        @Test
        void headerOrderDoesNotMatter() {
            assertEquivalent("sip:alice@atlanta.com?subject=project%20x&priority=urgent",
                    "sip:alice@atlanta.com?priority=urgent&subject=project%20x");
        }

        @Test
        void schemeIsCaseInsensitive() {
            assertEquivalent("SIP:alice@atlanta.com", "sip:alice@atlanta.com");
            assertEquivalent("SiPs:alice@atlanta.com", "sips:alice@atlanta.com");
        }

        @Test
        void escapeHexCaseDoesNotMatter() {
            assertEquivalent("sip:a%3bb@atlanta.com", "sip:a%3Bb@atlanta.com");
        }

        @Test
        void parameterNamesAndValuesCompareCaseInsensitively() {
            assertEquivalent("sip:bob@biloxi.com;MADDR=Example.COM", "sip:bob@biloxi.com;maddr=example.com");
            assertEquivalent("sip:bob@biloxi.com;lr;foo=BAR", "sip:bob@biloxi.com;LR;FOO=bar");
        }

        @Test
        void commonParameterWithSameValuesMatchesWhateverElseIsPresent() {
            assertEquivalent("sip:bob@biloxi.com;transport=udp;x=1", "sip:bob@biloxi.com;transport=UDP;y=2");
        }

        @Test
        void samePortWrittenBothTimesMatches() {
            assertEquivalent("sip:bob@biloxi.com:5060", "sip:bob@biloxi.com:5060");
        }

        @Test
        void passwordIsPartOfTheUserInfo() {
            assertEquivalent("sip:alice:secret@atlanta.com", "sip:alice:secret@atlanta.com");
            assertNotEquivalent("sip:alice:secret@atlanta.com", "sip:alice:Secret@atlanta.com");
            assertNotEquivalent("sip:alice:secret@atlanta.com", "sip:alice@atlanta.com");
        }

        @Test
        void ipv6HostComparesCaseInsensitively() {
            assertEquivalent("sip:alice@[2001:DB8::A]:5060", "sip:alice@[2001:db8::a]:5060");
        }
    }

    /** The pairs RFC 3261 §19.1.4 lists as different, and the rules behind them. */
    @Nested
    class NotEquivalentPerRfc3261 {

        @Test
        void userPartIsCaseSensitive() {
            assertNotEquivalent("SIP:ALICE@AtLanTa.CoM;Transport=udp", "sip:alice@AtLanTa.CoM;Transport=UDP");
            assertNotEquivalent("sip:alice@atlanta.com", "sip:ALICE@atlanta.com");
        }

        @Test
        void explicitDefaultPortDiffersFromNoPort() {
            assertNotEquivalent("sip:bob@biloxi.com", "sip:bob@biloxi.com:5060");
        }

        @Test
        void differentPortsDiffer() {
            assertNotEquivalent("sip:bob@biloxi.com:5060", "sip:bob@biloxi.com:5061");
        }

        @Test
        void transportPresentOnOneSideOnlyDiffers() {
            assertNotEquivalent("sip:bob@biloxi.com", "sip:bob@biloxi.com;transport=udp");
        }

        @Test
        void portAndTransportPresentOnOneSideOnlyDiffer() {
            assertNotEquivalent("sip:bob@biloxi.com", "sip:bob@biloxi.com:6000;transport=tcp");
        }

        @Test
        void headerPresentOnOneSideOnlyDiffers() {
            assertNotEquivalent("sip:carol@chicago.com", "sip:carol@chicago.com?Subject=next%20meeting");
        }

        @Test
        void headerValuesMustMatch() {
            assertNotEquivalent("sip:carol@chicago.com?Subject=next%20meeting",
                    "sip:carol@chicago.com?Subject=last%20meeting");
        }

        @Test
        void hostNameDiffersFromTheAddressItResolvesTo() {
            assertNotEquivalent("sip:bob@phone21.boxesbybob.com", "sip:bob@192.0.2.4");
        }

        @Test
        void sipAndSipsDiffer() {
            assertNotEquivalent("sip:alice@atlanta.com", "sips:alice@atlanta.com");
        }

        @Test
        void missingUserDiffersFromPresentUser() {
            assertNotEquivalent("sip:atlanta.com", "sip:alice@atlanta.com");
        }

        @ParameterizedTest
        @ValueSource(strings = {"user=phone", "ttl=15", "method=INVITE", "maddr=239.255.255.1", "transport=tcp"})
        void significantParameterOnOneSideOnlyDiffers(String param) {
            assertNotEquivalent("sip:bob@biloxi.com", "sip:bob@biloxi.com;" + param);
            assertNotEquivalent("sip:bob@biloxi.com;" + param, "sip:bob@biloxi.com");
        }

        @Test
        void commonParameterWithDifferentValuesDiffers() {
            assertNotEquivalent("sip:bob@biloxi.com;transport=tcp", "sip:bob@biloxi.com;transport=udp");
            assertNotEquivalent("sip:bob@biloxi.com;ttl=1", "sip:bob@biloxi.com;ttl=2");
            assertNotEquivalent("sip:bob@biloxi.com;foo=1", "sip:bob@biloxi.com;foo=2");
        }

        @Test
        void escapedReservedCharacterDiffersFromTheRawCharacter() {
            // §19.1.4: only characters outside the reserved set are equivalent to their encoding.
            assertNotEquivalent("sip:a%3Bb@atlanta.com", "sip:a;b@atlanta.com");
            assertNotEquivalent("sip:alice%3Asecret@atlanta.com", "sip:alice:secret@atlanta.com");
        }

        @Test
        void differentNonUtf8OctetsInUserDiffer() {
            assertNotEquivalent("sip:%FF@atlanta.com", "sip:%FE@atlanta.com");
        }

        @Test
        void headerValueComparisonIsCaseSensitive() {
            assertNotEquivalent("sip:carol@chicago.com?subject=Hi", "sip:carol@chicago.com?subject=hi");
        }
    }

    @Nested
    class Parsing {

        @Test
        void splitsAllComponents() {
            SipUri u = SipUri.parse("sips:alice:pw@Atlanta.COM:5061;Transport=TCP;lr?Subject=hi&Priority=urgent");
            assertEquals("sips", u.scheme());
            assertEquals("alice:pw", u.user());
            assertEquals("atlanta.com", u.host());
            assertEquals(OptionalInt.of(5061), u.port());
            assertEquals(Map.of("transport", "TCP", "lr", ""), u.params());
            assertEquals(java.util.List.of("transport", "lr"), java.util.List.copyOf(u.params().keySet()));
            assertEquals(Map.of("subject", "hi", "priority", "urgent"), u.headers());
        }

        @Test
        void hostOnlyUriHasEmptyUserAndNoPort() {
            SipUri u = SipUri.parse("sip:biloxi.com");
            assertEquals("", u.user());
            assertEquals("biloxi.com", u.host());
            assertTrue(u.port().isEmpty());
            assertTrue(u.params().isEmpty());
            assertTrue(u.headers().isEmpty());
        }

        @Test
        void surroundingWhitespaceIsIgnored() {
            assertEquals("alice", SipUri.parse("  sip:alice@atlanta.com \t").user());
        }

        @Test
        void ipv6HostWithPortIsUnbracketedAndLowerCased() {
            SipUri u = SipUri.parse("sip:alice@[2001:DB8::10]:5070;transport=udp");
            assertEquals("2001:db8::10", u.host());
            assertEquals(OptionalInt.of(5070), u.port());
            assertEquals("udp", u.params().get("transport"));
        }

        @Test
        void ipv6HostWithoutPortAndWithEmbeddedIpv4() {
            SipUri u = SipUri.parse("sip:[::ffff:192.0.2.1]");
            assertEquals("::ffff:192.0.2.1", u.host());
            assertTrue(u.port().isEmpty());
        }

        @Test
        void ipv4HostWithPort() {
            SipUri u = SipUri.parse("sip:192.0.2.4:5080");
            assertEquals("192.0.2.4", u.host());
            assertEquals(OptionalInt.of(5080), u.port());
        }

        @Test
        void semicolonInUserPartBelongsToTheUser() {
            // RFC 4475 §3.1.1.10 (semiuri)
            SipUri u = SipUri.parse("sip:user;par=u%40example.net@example.com");
            assertEquals("user;par=u%40example.net", u.user());
            assertEquals("example.com", u.host());
            assertTrue(u.params().isEmpty(), "par belongs to the user part, not the URI parameters");
        }

        @Test
        void escapedNullInUserDoesNotTruncate() {
            // RFC 4475 §3.1.1.9 (escnull)
            SipUri u = SipUri.parse("sip:null-%00-null@example.com");
            assertEquals("null-%00-null", u.user());
            assertNotEquivalent("sip:null-%00-null@example.com", "sip:null-@example.com");
            assertEquals("null-\u0000-null", u.toAddressOfRecord().user());
        }

        @Test
        void escapedUnreservedCharactersAreResolved() {
            assertEquals("alice.~*", SipUri.parse("sip:%61%6C%69%63%65%2E%7E%2A@x.org").user());
        }

        @Test
        void escapedReservedCharactersStayEscapedWithUpperCaseHex() {
            assertEquals("a%3Bb%40c%25", SipUri.parse("sip:a%3bb%40c%25@x.org").user());
        }

        @Test
        void rawNonAsciiUserIsStoredAsUtf8Escapes() {
            SipUri raw = SipUri.parse("sip:jos\u00e9@x.org");
            assertEquals("jos%C3%A9", raw.user());
            assertEquivalent("sip:jos\u00e9@x.org", "sip:jos%c3%a9@x.org");
        }

        @Test
        void escapesInParametersAndHeadersAreCanonicalised() {
            SipUri u = SipUri.parse("sip:x.org;f%6Fo=b%61r%2f?s%75bject=a%20b");
            assertEquals("bar%2F", u.params().get("foo"));
            assertEquals("a%20b", u.headers().get("subject"));
        }

        @Test
        void parameterNameIsLowerCasedButItsValueKeepsItsCase() {
            SipUri u = SipUri.parse("sip:x.org;MAddr=Host.Example");
            assertEquals("Host.Example", u.params().get("maddr"));
        }

        @Test
        void headersMayBeEmptyAfterQuestionMark() {
            assertTrue(SipUri.parse("sip:alice@x.org?").headers().isEmpty());
        }

        @Test
        void portZeroAndMaximumAreAccepted() {
            assertEquals(OptionalInt.of(0), SipUri.parse("sip:x.org:0").port());
            assertEquals(OptionalInt.of(65535), SipUri.parse("sip:x.org:65535").port());
        }
    }

    @Nested
    class Rejection {

        private void assertRejected(String text, String messageFragment) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SipUri.parse(text),
                    () -> "should reject " + text);
            assertTrue(e.getMessage().toLowerCase().contains(messageFragment.toLowerCase()),
                    () -> "message for " + text + " was '" + e.getMessage() + "', expected it to mention "
                            + messageFragment);
        }

        @Test
        void nullIsRejected() {
            assertRejected(null, "missing");
        }

        @ParameterizedTest
        @ValueSource(strings = {"sip:x.org:", "sip:x.org:65536", "sip:x.org:99999", "sip:x.org:123456",
                "sip:x.org:50a0", "sip:x.org:-1", "sip:x.org:+5", "sip:[::1]:", "sip:[::1]:x",
                "sip:x.org:\uff15\uff10\uff16\uff10"})
        void badPortIsRejected(String text) {
            assertRejected(text, "port");
        }

        @ParameterizedTest
        @ValueSource(strings = {"sip:", "sip:alice@", "sip:alice@;transport=tcp", "sip:alice@:5060", "sip:?a=b"})
        void missingHostIsRejected(String text) {
            assertRejected(text, "host");
        }

        @Test
        void unterminatedIpv6ReferenceIsRejected() {
            assertRejected("sip:alice@[2001:db8::1", "IPv6");
            assertRejected("sip:alice@[2001:db8::1:5060", "IPv6");
        }

        @ParameterizedTest
        @ValueSource(strings = {"sip:alice@[hello]", "sip:alice@[]", "sip:alice@[1.2.3.4]",
                "sip:alice@[2001:db8:::1]", "sip:alice@[fe80::1%25eth0]"})
        void malformedIpv6ReferenceIsRejected(String text) {
            assertRejected(text, "IPv6");
        }

        @Test
        void junkAfterIpv6ReferenceIsRejected() {
            assertRejected("sip:alice@[::1]5060", "IPv6");
        }

        @ParameterizedTest
        @ValueSource(strings = {"sip:al ice@x.org", "sip:alice@x.org>", "sip:<alice@x.org", "sip:\"alice\"@x.org",
                "sip:alice@x.org;a=\u0001", "sip:alice\u007f@x.org"})
        void illegalCharacterIsRejected(String text) {
            assertRejected(text, "illegal");
        }

        @ParameterizedTest
        @ValueSource(strings = {"sip:alice@exa!mple.com", "sip:alice@ex%61mple.com", "sip:alice@b\u00fccher.de",
                "sip:alice@exa/mple.com"})
        void illegalHostCharacterIsRejected(String text) {
            assertRejected(text, "host");
        }

        @ParameterizedTest
        @CsvSource({"sip:a%4@x.org, truncated", "sip:a%@x.org, truncated", "sip:alice@x.org;p=%4, truncated",
                "sip:a%zz@x.org, malformed", "sip:a%4g@x.org, malformed", "sip:alice@x.org?h=%g1, malformed",
                "'sip:a%\uff14\uff11@x.org', malformed"})
        void badEscapeIsRejected(String text, String fragment) {
            assertRejected(text, fragment);
        }

        @ParameterizedTest
        @ValueSource(strings = {"tel:+15551234", "http://x.org", "sipx:alice@x.org", "mailto:alice@x.org"})
        void otherSchemesAreRejected(String text) {
            assertRejected(text, "scheme");
        }

        @ParameterizedTest
        @ValueSource(strings = {"alice@x.org", ":alice@x.org", ""})
        void missingSchemeIsRejected(String text) {
            assertRejected(text, "scheme");
        }

        @Test
        void emptyUserBeforeAtIsRejected() {
            assertRejected("sip:@x.org", "user");
        }

        @Test
        void emptyOrNamelessOrRepeatedParameterIsRejected() {
            assertRejected("sip:x.org;", "empty parameter");
            assertRejected("sip:x.org;;lr", "empty parameter");
            assertRejected("sip:x.org;=5", "without a name");
            assertRejected("sip:x.org;lr;LR", "repeats");
        }

        @Test
        void namelessOrRepeatedHeaderIsRejected() {
            assertRejected("sip:x.org?a=1&&b=2", "without a name");
            assertRejected("sip:x.org?=1", "without a name");
            assertRejected("sip:x.org?Subject=a&subject=b", "repeats");
        }

        @Test
        void constructorRefusesWhatParseWouldRefuse() {
            assertThrows(IllegalArgumentException.class,
                    () -> new SipUri("tel", "", "x.org", OptionalInt.empty(), Map.of(), Map.of()));
            assertThrows(IllegalArgumentException.class,
                    () -> new SipUri("sip", "", "", OptionalInt.empty(), Map.of(), Map.of()));
            assertThrows(IllegalArgumentException.class,
                    () -> new SipUri("sip", "", "x.org", OptionalInt.of(70000), Map.of(), Map.of()));
        }
    }

    @Nested
    class Printing {

        @ParameterizedTest
        @ValueSource(strings = {
            "sip:alice@atlanta.com",
            "sips:alice:pw@atlanta.com:5061;transport=tcp;lr?subject=hi&priority=urgent",
            "sip:user;par=u%40example.net@example.com",
            "sip:null-%00-null@example.com",
            "sip:a%3Bb%25c@x.org",
            "sip:%C3%A9@x.org",
            "sip:alice@[2001:db8::1]:5060;maddr=[2001:db8::2]",
            "sip:biloxi.com;transport=tcp;method=REGISTER?to=sip:bob%40biloxi.com",
            "sip:x.org;foo=a%3Bb%20c?h=x%26y%3Dz",
            "sip:+1-555-1234;phone-context=example.com@x.org;user=phone"
        })
        void canonicalUriPrintsExactlyAsParsed(String text) {
            assertEquals(text, SipUri.parse(text).toString());
        }

        @ParameterizedTest
        @ValueSource(strings = {
            "SIP:%61lice@AtLanTa.CoM;Transport=TCP",
            "sip:a%3bb@x.org;F%6Fo=%41",
            "sip:jos\u00e9@x.org",
            "sip:x.org;lr?subject=",
            "sip:[::FFFF:192.0.2.1]:7"
        })
        void printedFormParsesBackToAnEqualUri(String text) {
            SipUri u = SipUri.parse(text);
            SipUri again = SipUri.parse(u.toString());
            assertEquals(u, again);
            assertTrue(u.equivalentTo(again));
        }

        @Test
        void printingNormalisesCaseAndEscapes() {
            assertEquals("sip:alice@atlanta.com;transport=TCP",
                    SipUri.parse("SIP:%61lice@AtLanTa.CoM;Transport=TCP").toString());
        }

        @Test
        void componentsBuiltByHandAreEscapedWhereTheyMustBe() {
            SipUri u = new SipUri("sip", "a@b c", "x.org", OptionalInt.empty(), Map.of("k", "v;w"),
                    Map.of("h", "1&2"));
            assertEquals("sip:a%40b%20c@x.org;k=v%3Bw?h=1%262", u.toString());
            assertEquals(u.toString(), SipUri.parse(u.toString()).toString());
        }
    }
}
