package dev.kandev.recovery.worker.harness;

import io.temporal.failure.ApplicationFailure;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * Wraps the real activity implementations so a test can run code right before or right after one
 * activity method: to inject a fault (after: the step's effect happened but its result was lost —
 * the hardest case for a compensation), to win a race, or to observe a boundary.
 */
public final class ActivityHooks implements UnaryOperator<Object> {
  private final Map<String, Runnable> before = new ConcurrentHashMap<>();
  private final Map<String, Runnable> after = new ConcurrentHashMap<>();

  public ActivityHooks before(String method, Runnable hook) {
    before.put(method, hook);
    return this;
  }

  public ActivityHooks after(String method, Runnable hook) {
    after.put(method, hook);
    return this;
  }

  public void clear() {
    before.clear();
    after.clear();
  }

  /** A hook that fails the activity non-retryably with the type {@code INJECTED_FAULT}. */
  public static Runnable fail(String what) {
    return () -> {
      throw ApplicationFailure.newNonRetryableFailure("injected failure: " + what, "INJECTED_FAULT");
    };
  }

  @Override
  public Object apply(Object activity) {
    InvocationHandler handler = (proxy, method, args) -> {
      before.getOrDefault(method.getName(), () -> {}).run();
      Object result;
      try {
        result = method.invoke(activity, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
      after.getOrDefault(method.getName(), () -> {}).run();
      return result;
    };
    return Proxy.newProxyInstance(activity.getClass().getClassLoader(), activity.getClass().getInterfaces(), handler);
  }
}
