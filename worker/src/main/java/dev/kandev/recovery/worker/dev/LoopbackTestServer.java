package dev.kandev.recovery.worker.dev;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.internal.testservice.GRPCServerHelper;
import io.temporal.internal.testservice.TestServicesStarter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * {@code dev}'s fallback without a Temporal CLI: the SDK's in-memory test server on a port of the
 * loopback interface. The SDK's own {@code TestServer.createPortBoundServer} listens on every
 * interface; this builds the same server (the same public classes of its test service) on loopback.
 */
public final class LoopbackTestServer implements AutoCloseable {
  private final TestServicesStarter services;
  private final Server server;

  private LoopbackTestServer(TestServicesStarter services, Server server) {
    this.services = services;
    this.server = server;
  }

  /** The server on {@code 127.0.0.1:port}, as {@code createPortBoundServer(port, false)} would make it. */
  public static LoopbackTestServer start(int port) {
    TestServicesStarter services = new TestServicesStarter(false, 0);
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    GRPCServerHelper.registerServicesAndHealthChecks(services.getServices(), builder);
    try {
      return new LoopbackTestServer(services, builder.build().start());
    } catch (IOException e) {
      services.close();
      throw new UncheckedIOException("cannot serve the in-memory Temporal test server on 127.0.0.1:" + port, e);
    }
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdown();
    if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
      server.shutdownNow();
    }
    services.close();
  }
}
