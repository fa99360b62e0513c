package mcpserver

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm/limits"
)

// HTTPOptions configure ServeHTTP.
type HTTPOptions struct {
	// AllowRemote allows an address that is not loopback; it needs a Token.
	AllowRemote bool
	// Token, when set, is the bearer token every request must carry
	// ("Authorization: Bearer TOKEN"); required for a remote address.
	Token string
	// MaxConns bounds the client connections open at once (256). At the bound, a new connection
	// takes the place of the oldest that has not yet sent a whole request (with the token, when
	// there is one); when every one has, it is answered 503 and closed (see pool).
	MaxConns int
	// Ready, when set, is called with the address listened on, before the first request.
	Ready func(net.Addr)
}

// minToken is the shortest bearer token accepted: 128 bits in hex.
const minToken = 32

// The bounds of every read from an HTTP client. A request's line and headers must arrive
// within headerTimeout and hold at most maxHeaderBytes; its body must arrive whole within
// bodyTimeout and hold at most maxBodyBytes, and it is read only once the bearer token is
// checked. Past the body nothing is read from the request, so a long tool call or event stream
// has no read deadline. A connection idle between requests is closed after idleTimeout. Each
// write to a client must go through within writeTimeout: a client that stops reading its event
// stream or a response is cut off, instead of holding the session's writes (and the server's
// notifications to every client) for as long as it likes.
const (
	headerTimeout  = 10 * time.Second
	bodyTimeout    = 30 * time.Second
	writeTimeout   = 30 * time.Second
	idleTimeout    = time.Minute
	maxHeaderBytes = 32 << 10
	maxBodyBytes   = 1 << 20 // a cell is at most 128 KiB (the validator's cap), 768 KiB JSON-escaped
)

// ServeHTTP serves the streamable HTTP transport on addr (host:port) until ctx ends. It refuses
// an address that is not loopback (a host name must resolve to loopback addresses only) unless
// o.AllowRemote is set with a token. Each request from a browser page on another origin, and
// each whose Host header is not the loopback name it was sent to, is refused as well.
func (s *Server) ServeHTTP(ctx context.Context, addr string, o HTTPOptions) error {
	if err := CheckHTTP(addr, o); err != nil {
		return err
	}
	if o.MaxConns <= 0 {
		o.MaxConns = limits.HTTPConns
	}
	ln, err := listen(ctx, addr, o.MaxConns, o.Token == "")
	if err != nil {
		return err
	}
	defer ln.Close()
	// The address actually bound decides, whatever the name said.
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && !o.AllowRemote {
		return fmt.Errorf("mcpserver: %s is not a loopback address", ln.Addr())
	}
	live := newLiveness(s.mcp, s.clientGone)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: 3 * s.opts.IdleTimeout, Logger: s.opts.Logger, MaxRequestBodyBytes: maxBodyBytes})
	handler := bounded(o.Token, http.NewCrossOriginProtection().Handler(live.track(h)))
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: headerTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: maxHeaderBytes,
		ConnState: ln.state, ConnContext: withConn}
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

// bounded checks the bearer token (when there is one), then reads the request's body whole,
// under bodyTimeout and maxBodyBytes, before next sees the request; then it marks the
// connection proved (pool), lifts the read deadline, and gives each write of the response
// writeTimeout. A request refused before its body is read is answered with its connection
// closed, and the unread body is not waited for.
func bounded(token string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Now().Add(bodyTimeout))
		refuse := func(status int, msg string) {
			w.Header().Set("Connection", "close")
			_ = rc.SetReadDeadline(time.Now()) // the server's read of the rest of the body fails at once
			http.Error(w, msg, status)
		}
		if token != "" && !bearer(r, token) {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			refuse(http.StatusUnauthorized, "no valid bearer token: send Authorization: Bearer TOKEN, the token rlm mcp was started with")
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			refuse(http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is over %d MiB, the most this server reads", maxBodyBytes>>20))
			return
		case err != nil:
			refuse(http.StatusRequestTimeout, fmt.Sprintf("the request body did not arrive whole within %s", bodyTimeout))
			return
		}
		_ = rc.SetReadDeadline(time.Time{})
		proved(r) // its connection is not closed for another until the response is done
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		next.ServeHTTP(&timedWriter{ResponseWriter: w, rc: rc}, r)
	})
}

// timedWriter gives each write to the client, and each flush, writeTimeout to go through.
type timedWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
}

func (w *timedWriter) Write(b []byte) (int, error) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	return w.ResponseWriter.Write(b)
}

func (w *timedWriter) FlushError() error {
	_ = w.rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	return w.rc.Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *timedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// bearer reports whether r carries the token, compared in constant time.
func bearer(r *http.Request, token string) bool {
	scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "bearer") && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
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
