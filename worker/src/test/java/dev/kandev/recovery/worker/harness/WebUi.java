package dev.kandev.recovery.worker.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TimeoutException;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The Temporal Web UI in Debian's headless chromium, driven through its chromedriver (never a
 * downloaded browser): pages an operator opens, their text, and screenshots kept as test artifacts.
 */
public final class WebUi implements AutoCloseable {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private final String base;
  private final Path screenshots;
  private final ChromeDriver driver;

  public WebUi(String base, Path screenshots, Path profile) {
    if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
      throw new AssertionError("the Web UI test needs Debian's chromium and chromium-driver: run scripts/setup");
    }
    this.base = base;
    this.screenshots = screenshots;
    ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile()).addArguments(
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--window-size=1400,1000", "--user-data-dir=" + profile);
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).build();
    this.driver = new ChromeDriver(service, options);
  }

  /** The workflow list filtered by a visibility query, e.g. {@code KandevSessionId = "s1"}. */
  public WebUi workflows(String query) {
    return open("/namespaces/default/workflows?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8));
  }

  /** A tab of a workflow run: {@code history}, {@code memo}, {@code user-metadata}, {@code pending-activities}, … */
  public WebUi workflow(String workflowId, String runId, String tab) {
    return open("/namespaces/default/workflows/" + workflowId + "/" + runId + "/" + tab);
  }

  private WebUi open(String path) {
    driver.get(base + path);
    return this;
  }

  /** Waits until the page's visible text satisfies {@code condition}; returns that text. */
  public String awaitText(Predicate<String> condition, String what) {
    try {
      new WebDriverWait(driver, PATIENCE).until(d -> condition.test(text()));
    } catch (TimeoutException e) {
      screenshot("failed-wait");
      throw new AssertionError("the Web UI never showed " + what + " at " + driver.getCurrentUrl() + "; it shows:\n" + text());
    }
    return text();
  }

  public String awaitText(String expected) {
    return awaitText(t -> t.contains(expected), "'" + expected + "'");
  }

  /**
   * The page's rendered text, its frames' included (the UI renders markdown such as the current
   * details in a frame), all whitespace runs as one space ("2 Workflows", not "2\nWorkflows").
   */
  public String text() {
    StringBuilder text = new StringBuilder(innerText());
    for (WebElement frame : driver.findElements(By.tagName("iframe"))) {
      try {
        driver.switchTo().frame(frame);
        text.append(' ').append(innerText());
      } catch (WebDriverException e) {
        // a frame that went away meanwhile
      } finally {
        driver.switchTo().defaultContent();
      }
    }
    return text.toString().replaceAll("\\s+", " ");
  }

  private String innerText() {
    return String.valueOf(driver.executeScript("return document.body ? document.body.innerText : ''"));
  }

  /** The rows of the event history table as the page shows them, top to bottom. */
  public List<String> eventRows() {
    List<String> rows = new ArrayList<>();
    for (WebElement row : driver.findElements(By.cssSelector("[data-testid=event-summary-row]"))) {
      rows.add(String.valueOf(driver.executeScript("return arguments[0].innerText", row)).replaceAll("\\s+", " "));
    }
    return rows;
  }

  /**
   * The steps the history shows, oldest first (the table lists newest first): each scheduled
   * activity's type, and each local activity's type followed by " (local)".
   */
  public List<String> steps() {
    new WebDriverWait(driver, PATIENCE).until(d -> !eventRows().isEmpty());
    List<String> types = new ArrayList<>();
    for (String row : eventRows()) {
      typeAfter(row, "Activity Task Scheduled Activity Type ").ifPresent(type -> types.add(0, type));
      typeAfter(row, "Local Activity Activity Type ").ifPresent(type -> types.add(0, type + " (local)"));
    }
    return types;
  }

  private static Optional<String> typeAfter(String row, String label) {
    int at = row.indexOf(label);
    return at < 0 ? Optional.empty() : Optional.of(row.substring(at + label.length()).split(" ")[0]);
  }

  /** Saves what the browser shows as {@code name}.png among the test's screenshots. */
  public Path screenshot(String name) {
    try {
      Files.createDirectories(screenshots);
      Path file = screenshots.resolve(name + ".png");
      Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    driver.quit();
  }
}
