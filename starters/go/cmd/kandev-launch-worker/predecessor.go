package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// predecessor is the launch worker that ran before this one with the same state folder, as it
// recorded itself (the Java worker's Predecessor, simplified to Linux): a SIGKILLed predecessor still
// counts as alive in worker_presence until it misses its beats for a minute; its successor sees at once
// that its process is gone (its pid is dead, or another process started since) and removes its
// presence, so its agents count as lost without that wait.
type predecessor struct {
	pid        int
	startTicks string
	instance   string
}

const predecessorFile = "kandev-launch-worker.pid"

// readPredecessor: the entry of the folder, if there is one that can be read.
func readPredecessor(dir string) (predecessor, bool) {
	data, err := os.ReadFile(filepath.Join(dir, predecessorFile))
	if err != nil {
		return predecessor{}, false
	}
	fields := strings.Fields(string(data))
	if len(fields) != 3 {
		return predecessor{}, false
	}
	pid, err := strconv.Atoi(fields[0])
	if err != nil {
		return predecessor{}, false
	}
	return predecessor{pid: pid, startTicks: fields[1], instance: fields[2]}, true
}

// gone: the recorded process no longer runs (where /proc cannot tell, it counts as running).
func (p predecessor) gone() bool {
	ticks, err := startTicks(p.pid)
	if os.IsNotExist(err) {
		return true
	}
	return err == nil && ticks != p.startTicks
}

// recordSelf writes this process as its successor will read it.
func recordSelf(dir, instance string) error {
	ticks, err := startTicks(os.Getpid())
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp := filepath.Join(dir, predecessorFile+".tmp")
	if err := os.WriteFile(tmp, []byte(fmt.Sprintf("%d %s %s\n", os.Getpid(), ticks, instance)), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, predecessorFile))
}

// forgetSelf: this process stopped cleanly; its successor has nothing to take over.
func forgetSelf(dir, instance string) {
	if p, ok := readPredecessor(dir); ok && p.instance == instance {
		_ = os.Remove(filepath.Join(dir, predecessorFile))
	}
}

// startTicks is field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot.
func startTicks(pid int) (string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", err
	}
	text := string(data)
	end := strings.LastIndexByte(text, ')') // the command name may hold spaces and parentheses
	fields := strings.Fields(text[end+1:])
	if end < 0 || len(fields) < 20 {
		return "", fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	return fields[19], nil
}
