package dev.kandev.recovery.activities.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class OutputTailTest {
  private static OutputTail drained(String output) {
    OutputTail tail = OutputTail.drain(new ByteArrayInputStream(output.getBytes(StandardCharsets.UTF_8)), "test-tail");
    assertThat(tail.awaitEnd(Duration.ofSeconds(5))).as("the stream's end is reached").isTrue();
    return tail;
  }

  @Test
  void shortOutputIsKeptWhole() {
    OutputTail tail = drained("first\nsecond\n");

    assertThat(tail.text()).isEqualTo("first\nsecond\n");
    assertThat(tail.lines()).containsExactly("first", "second");
  }

  @Test
  void longOutputKeepsItsLastBytesAndSaysThatEarlierOutputWasDropped() {
    String output = IntStream.range(0, 2_000).mapToObj(i -> "line " + i).collect(Collectors.joining("\n", "", "\n"));

    OutputTail tail = drained(output);

    assertThat(tail.text()).startsWith("…").endsWith("line 1999\n")
        .hasSize(OutputTail.CAPACITY_BYTES + 1);
    assertThat(output).endsWith(tail.text().substring(1));
    assertThat(tail.lines()).last().isEqualTo("line 1999");
  }

  @Test
  void aHugeLineWithoutNewlineStaysBounded() {
    OutputTail tail = drained("x".repeat(1_000_000) + "end");

    assertThat(tail.text()).hasSize(OutputTail.CAPACITY_BYTES + 1).endsWith("xend");
    assertThat(tail.lines()).hasSize(1);
  }
}
