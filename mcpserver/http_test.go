package mcpserver_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm/mcpserver"
)

const token = "0123456789abcdef0123456789abcdef-test-token"

// bearer adds a token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// serveHTTP serves srv on a loopback port and returns its URL.
func serveHTTP(t *testing.T, srv *mcpserver.Server, o mcpserver.HTTPOptions) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan net.Addr, 1)
	o.Ready = func(a net.Addr) { addrs <- a }
	done := make(chan error, 1)
	go func() { done <- srv.ServeHTTP(ctx, "127.0.0.1:0", o) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	})
	select {
	case a := <-addrs:
		return "http://" + a.String() + "/"
	case err := <-done:
		t.Fatalf("ServeHTTP: %v", err)
	}
	return ""
}

// TestHTTP: the streamable HTTP transport with a bearer token: a session works across
// requests; without the token, with a wrong one, or from a browser page of another origin,
// requests are refused.
func TestHTTP(t *testing.T) {
	srv, err := mcpserver.New(mcpserver.Options{Home: t.TempDir(), Roots: []string{demoDir}, Transport: "http"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	url := serveHTTP(t, srv, mcpserver.HTTPOptions{Token: token})

	c := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	o := open(t, cs, map[string]any{"lang": "js", "files": []string{"app.log"}})
	call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": `const n = count(context, "ERROR")`}, nil)
	var r execOut
	call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": `print(n)`}, &r)
	if r.Error != nil || strings.TrimSpace(r.Output) == "" {
		t.Errorf("state across HTTP requests: %+v", r)
	}
	call(t, cs, "sandbox_close", map[string]any{"session": o.Session}, nil)

	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	tests := []struct {
		name    string
		headers map[string]string
		status  int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer " + strings.Repeat("x", len(token))}, http.StatusUnauthorized},
		{"another origin", map[string]string{"Authorization": "Bearer " + token, "Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"a rebinding host name", map[string]string{"Authorization": "Bearer " + token, "Host": "evil.example"}, http.StatusForbidden},
		{"the token", map[string]string{"Authorization": "Bearer " + token}, http.StatusOK},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest("POST", url, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range tt.headers {
			req.Header.Set(k, v)
		}
		if h := tt.headers["Host"]; h != "" {
			req.Host = h
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s: status %d; want %d", tt.name, resp.StatusCode, tt.status)
		}
	}
}

// TestCheckHTTP: loopback only, unless remote access is allowed with a strong token.
func TestCheckHTTP(t *testing.T) {
	tests := []struct {
		addr string
		o    mcpserver.HTTPOptions
		want string // "" = accepted
	}{
		{"127.0.0.1:8765", mcpserver.HTTPOptions{}, ""},
		{"[::1]:8765", mcpserver.HTTPOptions{}, ""},
		{"localhost:8765", mcpserver.HTTPOptions{}, ""},
		{"127.0.0.1:8765", mcpserver.HTTPOptions{Token: "short"}, "at least 32"},
		{":8765", mcpserver.HTTPOptions{}, "not a loopback address"},
		{"0.0.0.0:8765", mcpserver.HTTPOptions{Token: token}, "--allow-remote"},
		{"192.0.2.7:8765", mcpserver.HTTPOptions{}, "not a loopback address"},
		{"0.0.0.0:8765", mcpserver.HTTPOptions{AllowRemote: true}, "needs a bearer token"},
		{"0.0.0.0:8765", mcpserver.HTTPOptions{AllowRemote: true, Token: token}, ""},
		{"8765", mcpserver.HTTPOptions{}, "want HOST:PORT"},
	}
	for _, tt := range tests {
		err := mcpserver.CheckHTTP(tt.addr, tt.o)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s %+v: %v", tt.addr, tt.o, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s %+v: %v; want an error with %q", tt.addr, tt.o, err, tt.want)
		}
	}
}
