package dev.kandev.recovery.worker;

import io.temporal.failure.ApplicationFailure;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.function.UnaryOperator;

/**
 * Wraps the real activity implementations so that one activity method fails (non-retryably)
 * either before it runs or after it ran — the latter is a step whose effect happened but whose
 * result was lost, the hardest case for a compensation.
 */
final class FaultInjection implements UnaryOperator<Object> {
  enum When { BEFORE, AFTER }

  private volatile String method = "";
  private volatile When when = When.BEFORE;

  void failAt(String method, When when) {
    this.method = method;
    this.when = when;
  }

  void heal() {
    method = "";
  }

  @Override
  public Object apply(Object activity) {
    InvocationHandler handler = (proxy, m, args) -> {
      boolean inject = m.getName().equals(method);
      if (inject && when == When.BEFORE) {
        throw injected(m.getName());
      }
      Object result;
      try {
        result = m.invoke(activity, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
      if (inject) {
        throw injected(m.getName());
      }
      return result;
    };
    return Proxy.newProxyInstance(activity.getClass().getClassLoader(), activity.getClass().getInterfaces(), handler);
  }

  private ApplicationFailure injected(String name) {
    return ApplicationFailure.newNonRetryableFailure("injected failure " + when.name().toLowerCase() + " " + name, "INJECTED_FAULT");
  }
}
