package org.p2psip.loadtest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The fenced code blocks of the project's README, for tests that run what
 * a reader would copy from it: when the README changes, they run the new
 * text or fail saying which block they no longer find.
 */
final class ReadmeBlocks {

    static final Path README = Path.of("..", "README.md");

    private final List<List<String>> blocks;

    private ReadmeBlocks(List<List<String>> blocks) {
        this.blocks = blocks;
    }

    static ReadmeBlocks read() throws IOException {
        List<List<String>> blocks = new ArrayList<>();
        List<String> current = null;
        for (String line : Files.readAllLines(README, StandardCharsets.UTF_8)) {
            if (line.startsWith("```")) {
                if (current == null) {
                    current = new ArrayList<>();
                } else {
                    blocks.add(List.copyOf(current));
                    current = null;
                }
            } else if (current != null) {
                current.add(line);
            }
        }
        return new ReadmeBlocks(blocks);
    }

    /** The first block one of whose lines contains every one of {@code texts}. */
    List<String> withLine(String... texts) {
        Predicate<String> all = line -> {
            for (String t : texts) {
                if (!line.contains(t)) {
                    return false;
                }
            }
            return true;
        };
        return blocks.stream().filter(b -> b.stream().anyMatch(all)).findFirst()
                .orElseThrow(() -> new AssertionError("README.md has no code block with a line containing "
                        + List.of(texts)));
    }

    /** The first line of {@code block} that contains {@code text}. */
    static String line(List<String> block, String text) {
        return block.stream().filter(l -> l.contains(text)).findFirst()
                .orElseThrow(() -> new AssertionError("no line with '" + text + "' in " + block));
    }
}
