package mcpserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure ServeHTTP.
type HTTPOptions struct {
	// AllowRemote allows an address that is not loopback; it needs a Token.
	AllowRemote bool
	// Token, when set, is the bearer token every request must carry
	// ("Authorization: Bearer TOKEN"); required for a remote address.
	Token string
	// Ready, when set, is called with the address listened on, before the first request.
	Ready func(net.Addr)
}

// minToken is the shortest bearer token accepted: 128 bits in hex.
const minToken = 32

// ServeHTTP serves the streamable HTTP transport on addr (host:port) until ctx ends. It refuses
// an address that is not loopback (a host name must resolve to loopback addresses only) unless
// o.AllowRemote is set with a token. Each request from a browser page on another origin, and
// each whose Host header is not the loopback name it was sent to, is refused as well.
func (s *Server) ServeHTTP(ctx context.Context, addr string, o HTTPOptions) error {
	if err := CheckHTTP(addr, o); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mcpserver: listening on %s: %w", addr, err)
	}
	defer ln.Close()
	// The address actually bound decides, whatever the name said.
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && !o.AllowRemote {
		return fmt.Errorf("mcpserver: %s is not a loopback address", ln.Addr())
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: 3 * s.opts.IdleTimeout, Logger: s.opts.Logger})
	var handler http.Handler = http.NewCrossOriginProtection().Handler(h)
	if o.Token != "" {
		handler = auth.RequireBearerToken(tokenVerifier(o.Token), &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(handler)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 5 * time.Minute}
	stop := context.AfterFunc(ctx, func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	})
	defer stop()
	if o.Ready != nil {
		o.Ready(ln.Addr())
	}
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// CheckHTTP is ServeHTTP's check of its address and options, for a caller that wants to
// refuse them before anything else: a non-loopback address without AllowRemote and a token,
// and a token shorter than 32 characters.
func CheckHTTP(addr string, o HTTPOptions) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: want HOST:PORT, such as 127.0.0.1:8765", addr)
	}
	if o.Token != "" && len(o.Token) < minToken {
		return fmt.Errorf("the bearer token has %d characters; use at least %d random ones (openssl rand -hex 32)", len(o.Token), minToken)
	}
	if o.AllowRemote {
		if o.Token == "" {
			return errors.New("a remote address needs a bearer token: pass --token-file FILE or set RLM_MCP_TOKEN")
		}
		return nil
	}
	if loopback(host) {
		return nil
	}
	return fmt.Errorf("%s is not a loopback address: anyone who reaches it could run code and read the roots; use 127.0.0.1 or [::1], or pass --allow-remote with a bearer token (and put TLS in front)", addr)
}

// loopback reports whether host names loopback addresses only ("" and 0.0.0.0 do not).
func loopback(host string) bool {
	if host == "" {
		return false
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	ips, err := net.LookupIP(host)
	if err != nil || len(ips) == 0 {
		return false
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return false
		}
	}
	return true
}

func tokenVerifier(token string) auth.TokenVerifier {
	return func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: "bearer"}, nil
	}
}
