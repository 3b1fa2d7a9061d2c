package main

import (
	"os"
	"os/exec"
	"testing"
)

func TestAPredecessorIsGoneOnceItsProcessIsOrAnotherHasItsPid(t *testing.T) {
	dir := t.TempDir()
	if err := recordSelf(dir, "w-1"); err != nil {
		t.Fatal(err)
	}
	self, ok := readPredecessor(dir)
	if !ok || self.pid != os.Getpid() || self.instance != "w-1" {
		t.Fatalf("read back %+v %v", self, ok)
	}
	if self.gone() {
		t.Error("a running process counts as gone")
	}
	if (predecessor{pid: self.pid, startTicks: "1", instance: "w-0"}).gone() == false {
		t.Error("a process that started at another moment under the same pid counts as the predecessor")
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if !(predecessor{pid: dead.Process.Pid, startTicks: "1", instance: "w-0"}).gone() {
		t.Error("an exited process counts as running")
	}
	forgetSelf(dir, "another")
	if _, ok := readPredecessor(dir); !ok {
		t.Error("forgetting another instance removed this one's entry")
	}
	forgetSelf(dir, "w-1")
	if _, ok := readPredecessor(dir); ok {
		t.Error("a clean stop left its entry")
	}
}
