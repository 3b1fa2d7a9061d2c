package dev.kandev.recovery.worker;

import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.dev.TemporalCli;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Optional;

/** A real Temporal server for a test: the Temporal CLI's dev server on free loopback ports, its SQLite in the test's folder. */
final class RealTemporalServer {
  private RealTemporalServer() {}

  static DevTemporalServer start(Path stateDir) {
    return DevTemporalServer.start(cli(), stateDir, freePort(), freePort());
  }

  /** The CLI `dev` would use; a machine without one fails the test with the command that installs it. */
  static Path cli() {
    return TemporalCli.find(
            Optional.ofNullable(System.getenv("KANDEV_TEMPORAL_CLI")).filter(s -> !s.isBlank()).map(Path::of),
            System.getenv("PATH"))
        .orElseThrow(() -> new AssertionError("this test needs a real Temporal server and found no Temporal CLI: run"
            + " scripts/setup (it installs the CLI into .tools/temporal/bin/temporal), or set KANDEV_TEMPORAL_CLI"));
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
