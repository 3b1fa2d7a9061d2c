package recovery_test

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	recovery "github.com/kdlbs/kandev-recovery/starters/go"
	"github.com/kdlbs/kandev-recovery/starters/go/kandevlaunch"
)

// Each JSON example in docs/contract.md is read into the struct its payload comment names, with no
// field left over, and written back unchanged: the structs mirror the contract field for field.
func TestTheStructsMirrorTheContractsJSONExamples(t *testing.T) {
	doc := contractDoc(t)
	structs := map[string]func() any{
		"ResumeRequest":         func() any { return &recovery.ResumeRequest{} },
		"ResumeResult":          func() any { return &recovery.ResumeResult{} },
		"ResumeFailure":         func() any { return &recovery.ResumeFailure{} },
		"ResumeProgress":        func() any { return &recovery.ResumeProgress{} },
		"RuntimeUpdateRequest":  func() any { return &recovery.RuntimeUpdateRequest{} },
		"RuntimeUpdateResult":   func() any { return &recovery.RuntimeUpdateResult{} },
		"RuntimeUpdateProgress": func() any { return &recovery.RuntimeUpdateProgress{} },
		"LaunchOutcome":         func() any { return &kandevlaunch.LaunchOutcome{} },
	}
	examples := regexp.MustCompile("(?s)<!-- payload: (\\w+) -->\n```json\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(examples) < len(structs) {
		t.Fatalf("docs/contract.md shows %d payload examples; want one at least for each of %d structs", len(examples), len(structs))
	}
	for _, example := range examples {
		name, text := example[1], example[2]
		newStruct, ok := structs[name]
		if !ok {
			t.Errorf("no Go struct for the contract's payload %s", name)
			continue
		}
		value := newStruct()
		decoder := json.NewDecoder(strings.NewReader(text))
		decoder.DisallowUnknownFields()
		if err := decoder.Decode(value); err != nil {
			t.Errorf("%s example does not fit the Go struct: %v\n%s", name, err, text)
			continue
		}
		written, err := json.Marshal(value)
		if err != nil {
			t.Fatal(err)
		}
		var want, got any
		_ = json.Unmarshal([]byte(text), &want)
		_ = json.NewDecoder(bytes.NewReader(written)).Decode(&got)
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s example changed on its way through the Go struct:\n%s\nbecame\n%s", name, text, written)
		}
	}
}

// Each Go excerpt in docs/contract.md is this module's code, line for line and in order, in one of
// its files: the contract shows what the starter really does.
func TestContractShowsTheGoStarter(t *testing.T) {
	doc := contractDoc(t)
	var sources []string
	for _, file := range []string{"resume.go", "runtime.go", "list.go", "example_test.go", "kandevlaunch/contract.go"} {
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
