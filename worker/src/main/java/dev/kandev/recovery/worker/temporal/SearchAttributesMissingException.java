package dev.kandev.recovery.worker.temporal;

import java.util.List;

/**
 * The namespace lacks search attributes the workflows set: the worker refuses to start rather than
 * poll and fail every resume's first workflow task. The message names them and the command that
 * creates them.
 */
public final class SearchAttributesMissingException extends RuntimeException {
  private final List<String> missing;

  SearchAttributesMissingException(String namespace, List<String> missing) {
    super("the Temporal namespace " + namespace + " lacks the search attributes " + String.join(", ", missing)
        + " the workflows set: create them with `temporal operator search-attribute create --namespace " + namespace
        + missing.stream().map(name -> " --name " + name).reduce("", String::concat)
        + " --type Keyword` (Temporal Cloud: `tcld namespace search-attributes add`, each of type Keyword),"
        + " or start the worker once with KANDEV_REGISTER_SEARCH_ATTRIBUTES=true");
    this.missing = List.copyOf(missing);
  }

  public List<String> missing() {
    return missing;
  }
}
