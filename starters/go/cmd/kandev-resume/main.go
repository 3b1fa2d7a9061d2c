// Command kandev-resume starts the resume of one session through the starter, waits for its
// outcome and prints the trace id of the resume (with OTEL_EXPORTER_OTLP_ENDPOINT set): the
// smallest program that shows how Kandev's API traces a resume, and what TracingIT runs.
//
//	kandev-resume -address 127.0.0.1:7233 -session s-1 [-fresh] [-timeout 5m]
//
// It prints "trace-id: <hex>" (when tracing is on) and "outcome: <outcome>"; exit code 1 when the
// resume failed or did not finish in time, 2 for bad arguments.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"go.temporal.io/sdk/client"

	recovery "github.com/kdlbs/kandev-recovery/starters/go"
)

func main() {
	os.Exit(run())
}

func run() int {
	address := flag.String("address", envOr("TEMPORAL_ADDRESS", "127.0.0.1:7233"), "Temporal frontend host:port")
	namespace := flag.String("namespace", envOr("TEMPORAL_NAMESPACE", "default"), "Temporal namespace")
	session := flag.String("session", "", "the session to resume")
	fresh := flag.Bool("fresh", false, "start a fresh agent session instead of loading the stored one")
	timeout := flag.Duration("timeout", 5*time.Minute, "how long to wait for the outcome")
	flag.Parse()
	if *session == "" {
		fmt.Fprintln(os.Stderr, "kandev-resume: -session is required")
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	tracing, err := recovery.NewTracing(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kandev-resume: tracing (OTEL_*):", err)
		return 2
	}
	defer func() {
		flush, done := context.WithTimeout(context.Background(), 10*time.Second)
		defer done()
		if err := tracing.Shutdown(flush); err != nil {
			fmt.Fprintln(os.Stderr, "kandev-resume: exporting the spans:", err)
		}
	}()
	c, err := client.Dial(client.Options{HostPort: *address, Namespace: *namespace, Interceptors: tracing.ClientInterceptors()})
	if err != nil {
		fmt.Fprintln(os.Stderr, "kandev-resume: temporal at", *address+":", err)
		return 1
	}
	defer c.Close()

	mode := recovery.ModeResume
	if *fresh {
		mode = recovery.ModeStartFresh
	}
	resume, err := recovery.NewStarter(c).StartResume(ctx, recovery.ResumeRequest{
		SessionID: *session, Mode: mode, Reason: "user", RequestedBy: "kandev-resume"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "kandev-resume:", err)
		return 1
	}
	if resume.TraceID != "" {
		fmt.Println("trace-id:", resume.TraceID)
	}
	result, err := resume.Await(ctx)
	if err != nil {
		fmt.Println("failed:", err)
		return 1
	}
	fmt.Println("outcome:", result.Outcome)
	return 0
}

func envOr(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}
