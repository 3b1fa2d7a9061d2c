package dev.kandev.recovery.worker.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import dev.kandev.recovery.activities.testing.Await;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * Reads the CPU a resume costs on this machine, split by who spends it: the Temporal server's
 * processes (the way's own), this JVM (the worker and the benchmark), every process of the
 * PostgreSQL instances involved (each postmaster's tree), and the agents (the JVM's children
 * other than the servers it started). {@link Sample#minus} of two readings around a phase is that
 * phase's CPU.
 */
final class CpuMeter {
  /** Milliseconds of CPU; {@code jit}: the JVM's JIT compiler's time, part of {@code jvm}. */
  record Sample(long server, long jvm, long jit, long postgres, long agent) {
    Sample minus(Sample before) {
      return new Sample(server - before.server, jvm - before.jvm, jit - before.jit, postgres - before.postgres,
          agent - before.agent);
    }

    long total() {
      return server + jvm + postgres + agent;
    }
  }

  private final List<ProcessHandle> postmasters;
  private final Collection<ProcessHandle> startedServers;

  /**
   * @param postmasters the postmasters of the PostgreSQL instances involved
   * @param startedServers every server process this JVM started (left out of the agents' share)
   */
  CpuMeter(List<ProcessHandle> postmasters, Collection<ProcessHandle> startedServers) {
    this.postmasters = List.copyOf(postmasters);
    this.startedServers = List.copyOf(startedServers);
  }

  Sample read(Collection<ProcessHandle> server) {
    return new Sample(ProcessCpu.treeMillis(server), ProcessCpu.jvmMillis(), ProcessCpu.jitMillis(), ProcessCpu.treeMillis(postmasters),
        ProcessCpu.childrenMillis(startedServers));
  }

  /** Waits until the JVM has no child but the servers it started: every agent has exited and been reaped. */
  void awaitNoAgent() {
    Set<Long> servers = startedServers.stream().map(ProcessHandle::pid).collect(Collectors.toSet());
    Await.until(() -> ProcessHandle.current().children().allMatch(child -> servers.contains(child.pid())),
        Duration.ofSeconds(30), "the agents to exit");
  }

  /** The postmaster of the instance {@code dataSource} connects to: the parent of its backend. */
  static ProcessHandle postmaster(DataSource dataSource) {
    try (Connection c = dataSource.getConnection();
        Statement statement = c.createStatement();
        ResultSet rs = statement.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      long postmaster = ProcessCpu.parent(rs.getLong(1));
      return ProcessHandle.of(postmaster)
          .orElseThrow(() -> new IllegalStateException("the postmaster " + postmaster + " is gone"));
    } catch (SQLException e) {
      throw new IllegalStateException("cannot ask PostgreSQL for its backend's pid: " + e.getMessage(), e);
    }
  }
}
