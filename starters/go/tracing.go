package recovery

import (
	"context"
	"errors"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
)

// tracerName names the starter's own spans (StartResume).
const tracerName = "github.com/kdlbs/kandev-recovery/starters/go"

// Tracing is the starter process's OpenTelemetry tracing: off (no exporter, no interceptor) unless
// the standard variables ask for it (see TracingRequested). Its ClientInterceptors go on the
// Temporal client's options; Shutdown flushes the spans before the process exits.
type Tracing struct {
	provider     *sdktrace.TracerProvider
	interceptors []interceptor.ClientInterceptor
}

// TracingRequested is true when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
// is set, or OTEL_TRACES_EXPORTER names an exporter other than none, and OTEL_SDK_DISABLED is not
// true: the same rule as the worker's.
func TracingRequested() bool {
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	if exporter := strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER")); exporter != "" {
		return !strings.EqualFold(exporter, "none")
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// NewTracing sets up tracing from the OTEL_* variables: spans go over OTLP/HTTP
// (OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS, _TIMEOUT, ...) with the resource of OTEL_SERVICE_NAME
// (default kandev-starter) and OTEL_RESOURCE_ATTRIBUTES. It installs the provider and the W3C
// trace-context propagator as OpenTelemetry's globals, which the Starter's spans use. Without the
// variables it returns a Tracing that does nothing.
func NewTracing(ctx context.Context) (*Tracing, error) {
	if !TracingRequested() {
		return &Tracing{}, nil
	}
	if exporter := strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER")); exporter != "" && !strings.EqualFold(exporter, "otlp") {
		return nil, errors.New("OTEL_TRACES_EXPORTER=" + exporter + ": only otlp is supported")
	}
	exporter, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, err
	}
	res, err := resource.Merge(
		resource.NewSchemaless(attribute.String("service.name", "kandev-starter")),
		resource.Environment())
	if err != nil {
		return nil, err
	}
	provider := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	propagator := propagation.TraceContext{}
	otel.SetTracerProvider(provider)
	otel.SetTextMapPropagator(propagator)
	tracing, err := temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{
		Tracer:            provider.Tracer("temporal-sdk-go"),
		TextMapPropagator: propagator,
	})
	if err != nil {
		return nil, err
	}
	return &Tracing{provider: provider, interceptors: []interceptor.ClientInterceptor{tracing}}, nil
}

// ClientInterceptors are for client.Options.Interceptors: none when tracing is off.
func (t *Tracing) ClientInterceptors() []interceptor.ClientInterceptor {
	return t.interceptors
}

// Shutdown exports the spans not sent yet and stops the exporter.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t.provider == nil {
		return nil
	}
	return t.provider.Shutdown(ctx)
}

// startResumeSpan starts the starter's span of a resume request on the global tracer provider (a
// no-op one unless NewTracing or the application installed one). Its attributes are ids, never
// the request's payload.
func startResumeSpan(ctx context.Context, req ResumeRequest) (context.Context, trace.Span) {
	return otel.Tracer(tracerName).Start(ctx, "StartResume", trace.WithAttributes(
		attribute.String("kandev.session.id", req.SessionID),
		attribute.String("kandev.resume.mode", string(req.Mode)),
		attribute.String("kandev.resume.reason", req.Reason)))
}

// traceIDOf is the trace id of the span in hex, "" when it is not recorded.
func traceIDOf(span trace.Span) string {
	if !span.SpanContext().HasTraceID() {
		return ""
	}
	return span.SpanContext().TraceID().String()
}
