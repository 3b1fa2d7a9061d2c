package recovery

import (
	"context"
	"testing"
)

func TestTracingIsOffUnlessTheVariablesNameWhereSpansGo(t *testing.T) {
	for _, name := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		t.Setenv(name, "")
	}
	cases := []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, false},
	}
	for _, c := range cases {
		for name, value := range c.env {
			t.Setenv(name, value)
		}
		if got := TracingRequested(); got != c.want {
			t.Errorf("TracingRequested() with %v = %v, want %v", c.env, got, c.want)
		}
		for name := range c.env {
			t.Setenv(name, "")
		}
	}
}

func TestTracingOffAddsNoInterceptor(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	t.Setenv("OTEL_TRACES_EXPORTER", "")
	tracing, err := NewTracing(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tracing.ClientInterceptors()) != 0 {
		t.Errorf("interceptors with tracing off: %v", tracing.ClientInterceptors())
	}
	if err := tracing.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
}
