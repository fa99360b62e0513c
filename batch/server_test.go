package batch

import (
	"errors"
	"testing"

	"github.com/rlm-sandbox/rlm/fault"
)

func TestDialCheck(t *testing.T) {
	tests := []struct {
		name string
		d    Dial
		want error // nil, fault.Denied or fault.Schema
	}{
		{"loopback", Dial{URL: "nats://127.0.0.1:4222"}, nil},
		{"localhost", Dial{URL: "nats://localhost:4222"}, nil},
		{"ipv6 loopback", Dial{URL: "nats://[::1]:4222"}, nil},
		{"remote in the clear", Dial{URL: "nats://queue.example:4222"}, fault.Denied},
		{"one remote of a list", Dial{URL: "nats://127.0.0.1:4222,nats://10.0.0.2:4222"}, fault.Denied},
		{"remote, insecure", Dial{URL: "nats://queue.example:4222", Insecure: true}, nil},
		{"remote, tls URL", Dial{URL: "tls://queue.example:4222"}, nil},
		{"remote, creds", Dial{URL: "nats://queue.example:4222", Creds: "u.creds"}, nil},
		{"remote, CA", Dial{URL: "nats://queue.example:4222", CA: "ca.pem"}, nil},
		{"cert without key", Dial{URL: "tls://queue.example:4222", Cert: "c.pem"}, fault.Schema},
		{"no host", Dial{URL: "queue.example"}, fault.Schema},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.d.check()
			if (tt.want == nil) != (err == nil) || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("check(%+v) = %v, want %v", tt.d, err, tt.want)
			}
		})
	}
}

func TestEmbeddedListensOnLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.7:4222", ":4222"} {
		if s, err := Embedded(t.TempDir(), addr); !errors.Is(err, fault.Denied) {
			if s != nil {
				s.Close()
			}
			t.Errorf("Embedded(%q) = %v, want a denied error", addr, err)
		}
	}
}
