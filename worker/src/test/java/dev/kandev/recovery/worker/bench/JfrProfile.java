package dev.kandev.recovery.worker.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * A Java Flight Recorder profile of this JVM over one phase: its execution samples, each charged to
 * the library of its first frame outside the JDK (who asked for the work: a HashMap lookup inside
 * Jackson is Jackson's), and to that frame's method; the JIT compiler's time (its compilations'
 * durations, which no Java sample shows) and the collectors'.
 */
record JfrProfile(Map<String, Integer> samplesByLibrary, Map<String, Integer> samplesByMethod, int samples,
    double compileMillis, double gcMillis) {
  /** Libraries by package prefix, most specific first; a frame of none of them is "other". */
  private static final Map<String, String> LIBRARIES = libraries();

  /** Records {@code phase} with the JDK's "profile" settings (a Java sample every 10 ms per thread) into {@code file}. */
  static JfrProfile of(Path file, Phase phase) throws Exception {
    try (Recording recording = new Recording(profileSettings())) {
      recording.enable("jdk.Compilation").withThreshold(Duration.ZERO); // the profile keeps only those over 100 ms
      recording.start();
      phase.run();
      recording.stop();
      recording.dump(file);
    }
    return read(file);
  }

  @FunctionalInterface
  interface Phase {
    void run() throws Exception;
  }

  private static Configuration profileSettings() throws IOException, ParseException {
    return Configuration.getConfiguration("profile");
  }

  private static JfrProfile read(Path file) throws IOException {
    Map<String, Integer> byLibrary = new HashMap<>();
    Map<String, Integer> byMethod = new HashMap<>();
    int samples = 0;
    double compileMillis = 0;
    double gcMillis = 0;
    for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
      String name = event.getEventType().getName();
      if (name.equals("jdk.Compilation")) {
        compileMillis += event.getDuration().toNanos() / 1e6;
      } else if (name.equals("jdk.GarbageCollection")) {
        gcMillis += event.getDuration().toNanos() / 1e6;
      }
      if (!name.equals("jdk.ExecutionSample") || event.getStackTrace() == null) {
        continue;
      }
      samples++;
      RecordedFrame frame = firstOutsideJdk(event.getStackTrace());
      String type = frame == null ? "jdk" : frame.getMethod().getType().getName();
      String library = frame == null ? "JDK only (thread runners, the process reaper)" : libraryOf(type);
      byLibrary.merge(library, 1, Integer::sum);
      String method = frame == null ? "(JDK only)" : simpleName(type) + "." + frame.getMethod().getName();
      byMethod.merge(method, 1, Integer::sum);
    }
    return new JfrProfile(Map.copyOf(byLibrary), Map.copyOf(byMethod), samples, compileMillis, gcMillis);
  }

  private static RecordedFrame firstOutsideJdk(RecordedStackTrace stack) {
    List<RecordedFrame> frames = stack.getFrames();
    for (RecordedFrame frame : frames) {
      String type = frame.getMethod().getType().getName();
      if (!(type.startsWith("java.") || type.startsWith("jdk.") || type.startsWith("sun.") || type.startsWith("javax."))) {
        return frame;
      }
    }
    return null;
  }

  private static String libraryOf(String type) {
    return LIBRARIES.entrySet().stream().filter(e -> type.startsWith(e.getKey())).map(Map.Entry::getValue).findFirst()
        .orElse("other: " + type.replaceAll("^((?:[^.]+\\.){1,3}).*$", "$1"));
  }

  private static String simpleName(String type) {
    return type.substring(type.lastIndexOf('.') + 1);
  }

  private static Map<String, String> libraries() {
    Map<String, String> libraries = new LinkedHashMap<>();
    libraries.put("io.temporal.shaded", "gRPC and Netty (SDK-shaded)");
    libraries.put("io.grpc", "gRPC and Netty (SDK-shaded)");
    libraries.put("io.netty", "gRPC and Netty (SDK-shaded)");
    libraries.put("com.google.protobuf", "protobuf");
    libraries.put("io.temporal.api", "protobuf");
    libraries.put("io.temporal.common.converter", "Temporal SDK: payload conversion");
    libraries.put("io.temporal.internal.replay", "Temporal SDK: workflow tasks and replay");
    libraries.put("io.temporal.internal.statemachines", "Temporal SDK: workflow tasks and replay");
    libraries.put("io.temporal.internal.sync", "Temporal SDK: workflow threads");
    libraries.put("io.temporal.internal.worker", "Temporal SDK: pollers, task handlers");
    libraries.put("io.temporal.internal.activity", "Temporal SDK: activity execution");
    libraries.put("io.temporal.serviceclient", "Temporal SDK: service stubs");
    libraries.put("io.temporal.testing", "Temporal SDK: TestActivityEnvironment");
    libraries.put("io.temporal.testserver", "Temporal SDK: test server");
    libraries.put("io.temporal.internal.testservice", "Temporal SDK: test server");
    libraries.put("io.temporal", "Temporal SDK: other");
    libraries.put("com.uber.m3", "metrics (tally)");
    libraries.put("io.micrometer", "metrics (Micrometer)");
    libraries.put("io.opentelemetry", "tracing (OpenTelemetry)");
    libraries.put("com.fasterxml.jackson", "JSON (Jackson)");
    libraries.put("org.postgresql", "JDBC (pgjdbc, HikariCP, Jdbi)");
    libraries.put("com.zaxxer.hikari", "JDBC (pgjdbc, HikariCP, Jdbi)");
    libraries.put("org.jdbi", "JDBC (pgjdbc, HikariCP, Jdbi)");
    libraries.put("ch.qos.logback", "logging");
    libraries.put("org.slf4j", "logging");
    libraries.put("dev.kandev.recovery.worker.bench", "the benchmark (resets, timing)");
    libraries.put("dev.kandev.recovery.activities.testing", "the benchmark (resets, timing)");
    libraries.put("dev.kandev.recovery.activities", "ours: activities");
    libraries.put("dev.kandev.recovery.workflows", "ours: workflows");
    libraries.put("dev.kandev.recovery.worker", "ours: worker");
    libraries.put("dev.dbos", "DBOS");
    libraries.put("org.junit", "JUnit");
    return libraries;
  }
}
