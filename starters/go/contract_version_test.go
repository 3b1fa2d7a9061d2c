package recovery_test

import (
	"os"
	"regexp"
	"testing"

	recovery "github.com/kdlbs/kandev-recovery/starters/go"
)

// The starter declares the contract version docs/contract.md carries.
func TestTheStarterSpeaksTheContractsVersion(t *testing.T) {
	doc := contractDoc(t)
	found := regexp.MustCompile(`Contract version: \*\*(\d+\.\d+)\*\*`).FindSubmatch(doc)
	if found == nil {
		t.Fatal("docs/contract.md states no \"Contract version: **MAJOR.MINOR**\"")
	}
	if string(found[1]) != recovery.ContractVersion {
		t.Errorf("docs/contract.md is at contract version %s, the starter speaks %s", found[1], recovery.ContractVersion)
	}
}

// contractDoc is docs/contract.md, which the starter's structs, code and version must match.
func contractDoc(t *testing.T) []byte {
	t.Helper()
	doc, err := os.ReadFile("../../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
