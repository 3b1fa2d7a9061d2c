package dev.kandev.recovery.worker.interceptors;

import io.temporal.activity.ActivityExecutionContext;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A test hook, off unless the JVM runs with {@code -D}{@value #PROPERTY}{@code =<file>}: freezes the
 * activity (or local activity) named in the file for a session, right before it runs or right after
 * it returned (its effect committed, its result not yet reported), prints {@code FROZEN <session>
 * <ActivityType> <before|after>} and waits until the process is killed, or until the line is taken
 * out of the file (then the step goes on: a test does something to the world while it is frozen).
 * Black-box crash tests use it to SIGKILL a worker at an exact step of a resume. Each line of the
 * file: {@code <sessionId> <ActivityType> <before|after>}; the file is read at each activity and
 * while frozen, so a test may write it late (replace it whole, by a rename, so no reader sees half).
 *
 * <p>While it is on, every activity's end is printed too: {@code RAN <session> <ActivityType> ok} or
 * {@code RAN <session> <ActivityType> failed <failure type>}.
 *
 * <p>It ships in the production jar (the crash tests run that jar) and {@code JAVA_TOOL_OPTIONS} can
 * switch it on unseen, so a process that runs with it says so at start: a {@code TEST HOOK} line on
 * stdout, beside the banner, and a WARN in the log.
 */
public final class StepFreezeInterceptor extends WorkerInterceptorBase {
  public static final String PROPERTY = "kandev.testing.freezeSteps";
  private static final long CHECK_EVERY_MILLIS = 200;
  private static final Logger log = LoggerFactory.getLogger(StepFreezeInterceptor.class);
  /** The worker's warm-up and its workers each build the interceptors: the process says it once. */
  private static final AtomicBoolean ANNOUNCED = new AtomicBoolean();

  private final Path file;

  private StepFreezeInterceptor(Path file) {
    this.file = file;
  }

  /** The hook if {@value #PROPERTY} names a file; the first call of a process announces it on stdout and in the log. */
  public static Optional<StepFreezeInterceptor> fromSystemProperty() {
    String file = System.getProperty(PROPERTY);
    if (file != null && ANNOUNCED.compareAndSet(false, true)) {
      announce(file, System.out);
    }
    return Optional.ofNullable(file).map(Path::of).map(StepFreezeInterceptor::new);
  }

  /** Says on {@code banner} and as a WARN in the log that the hook is on, freezing at what {@code file} names. */
  static void announce(String file, PrintStream banner) {
    String warning = "-D" + PROPERTY + "=" + file + " is on: a test hook that freezes the activities that file names"
        + " until the process is killed. Never run a production worker with it (look at JAVA_TOOL_OPTIONS)";
    banner.println("TEST HOOK    " + warning);
    banner.flush();
    log.warn(warning);
  }

  private Set<String> points() {
    try {
      return !Files.exists(file) ? Set.of() : Files.readAllLines(file).stream()
          .map(String::trim).filter(line -> !line.isEmpty()).map(line -> String.join(" ", line.split("\\s+")))
          .collect(Collectors.toUnmodifiableSet());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the steps to freeze at from " + file, e);
    }
  }

  @Override
  public ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
    return new ActivityInboundCallsInterceptorBase(next) {
      private String activityType = "";

      @Override
      public void init(ActivityExecutionContext context) {
        activityType = context.getInfo().getActivityType();
        super.init(context);
      }

      @Override
      public ActivityOutput execute(ActivityInput input) {
        Object[] arguments = input.getArguments();
        String session = arguments.length > 0 && arguments[0] instanceof String id ? id : "";
        String point = session + " " + activityType;
        freezeIfAsked(point + " before");
        ActivityOutput output;
        try {
          output = super.execute(input);
        } catch (RuntimeException e) {
          ran(point, "failed " + (e instanceof ApplicationFailure failure ? failure.getType() : e.getClass().getSimpleName()));
          throw e;
        }
        ran(point, "ok");
        freezeIfAsked(point + " after");
        return output;
      }
    };
  }

  /** Every step's end, so a test knows when a step it let go on (or any later one) is over. */
  private static void ran(String point, String how) {
    System.out.println("RAN " + point + " " + how);
    System.out.flush();
  }

  private void freezeIfAsked(String point) {
    if (!points().contains(point)) {
      return;
    }
    System.out.println("FROZEN " + point);
    System.out.flush();
    try {
      while (points().contains(point)) {
        Thread.sleep(CHECK_EVERY_MILLIS);
      }
      System.out.println("THAWED " + point);
      System.out.flush();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("frozen at " + point + " until the process is killed or the point is taken out;"
          + " it was stopped instead", e);
    }
  }
}
