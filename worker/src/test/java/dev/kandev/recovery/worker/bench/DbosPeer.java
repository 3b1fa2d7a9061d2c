package dev.kandev.recovery.worker.bench;

import dev.kandev.recovery.worker.Components;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Starts {@code bench.dbos.DbosResume} in a class loader of its own. DBOS Transact brings Jackson 3
 * (and needs newer Jackson 2 annotations than the product's); on the test class path Jackson 3 would
 * change the product's own libraries (Flyway switches to it when it is present, and fails on the
 * older annotations). So the test class path has the DBOS jar alone (to compile against; inert
 * without Jackson 3), the {@code benchmark} profile copies DBOS and what it needs to {@code
 * target/dbos-lib}, and this loader takes DBOS, Jackson 3, those annotations, Kotlin, cron-utils and
 * the DBOS path's own classes from there first, everything else (the product, the JDBC driver,
 * HikariCP) from the test class path.
 */
final class DbosPeer {
  private static final String PEER_CLASS = "dev.kandev.recovery.worker.bench.dbos.DbosResume";
  private static final List<String> OWN_FIRST = List.of("dev.dbos.", "tools.jackson.", "com.fasterxml.jackson.annotation.",
      "kotlin.", "com.cronutils.", "dev.kandev.recovery.worker.bench.dbos.");

  private DbosPeer() {}

  static PeerResume start(Components components, int lanes) {
    Path lib = Path.of(System.getProperty("bench.dbos.lib", "target/dbos-lib"));
    if (!Files.isDirectory(lib)) {
      throw new AssertionError("no DBOS jars in " + lib.toAbsolutePath() + ": run the benchmark with -Pbenchmark");
    }
    try (Stream<Path> files = Files.list(lib)) {
      List<URL> urls = new ArrayList<>();
      for (Path jar : files.filter(f -> f.toString().endsWith(".jar")).sorted().toList()) {
        urls.add(jar.toUri().toURL());
      }
      urls.add(DbosPeer.class.getProtectionDomain().getCodeSource().getLocation());
      ClassLoader loader = new OwnFirst(urls.toArray(URL[]::new), DbosPeer.class.getClassLoader());
      return (PeerResume) loader.loadClass(PEER_CLASS).getConstructor(Components.class, int.class)
          .newInstance(components, lanes);
    } catch (InvocationTargetException e) {
      throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
    } catch (MalformedURLException | ReflectiveOperationException e) {
      throw new IllegalStateException("cannot load " + PEER_CLASS + " from " + lib, e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Loads the {@link #OWN_FIRST} packages from its own jars before asking the parent. */
  private static final class OwnFirst extends URLClassLoader {
    OwnFirst(URL[] urls, ClassLoader parent) {
      super("dbos-peer", urls, parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (OWN_FIRST.stream().noneMatch(name::startsWith)) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> loaded = findLoadedClass(name);
        if (loaded == null) {
          try {
            loaded = findClass(name);
          } catch (ClassNotFoundException notOurs) {
            loaded = getParent().loadClass(name);
          }
        }
        if (resolve) {
          resolveClass(loaded);
        }
        return loaded;
      }
    }
  }
}
