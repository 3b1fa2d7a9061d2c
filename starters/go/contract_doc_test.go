package recovery_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// Each Go excerpt in docs/contract.md is this module's code, line for line and in order, in one of
// its files: the contract shows what the starter really does.
func TestContractShowsTheGoStarter(t *testing.T) {
	doc, err := os.ReadFile("../../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, file := range []string{"resume.go", "runtime.go", "list.go", "example_test.go"} {
		code, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, trimmedLines(string(code)))
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) == 0 {
		t.Fatal("docs/contract.md shows no Go code")
	}
	for _, block := range blocks {
		excerpt := trimmedLines(block[1])
		found := false
		for _, source := range sources {
			found = found || strings.Contains(source, excerpt)
		}
		if !found {
			t.Errorf("docs/contract.md shows Go code that is not in starters/go:\n%s", block[1])
		}
	}
}

// trimmedLines is text with each line's indentation dropped, so an excerpt may be dedented.
func trimmedLines(text string) string {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		lines[i] = strings.TrimSpace(line)
	}
	return strings.Join(lines, "\n")
}
