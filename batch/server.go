package batch

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"golang.org/x/sys/unix"

	"github.com/rlm-sandbox/rlm/fault"
)

// Server is an embedded NATS server with JetStream.
type Server struct {
	ns   *server.Server
	lock *os.File // held while the server runs: one server per storage directory
}

// Embedded starts a NATS server in this process with JetStream on file storage in dir.
// listen is "" (no network listener: connect with Conn) or a loopback HOST:PORT (port 0: any)
// for workers on this machine; any other address is refused, since the embedded server has
// no credentials.
func Embedded(dir, listen string) (*Server, error) {
	opts := &server.Options{ServerName: "rlm-embedded", JetStream: true, StoreDir: dir, NoSigs: true, NoLog: true, DontListen: listen == ""}
	if listen != "" {
		host, port, err := net.SplitHostPort(listen)
		if err != nil {
			return nil, fault.Wrap(fault.Schema, err, "listen address")
		}
		if !loopback(host) {
			return nil, fault.New(fault.Denied, "listen address %s: the embedded server has no TLS or credentials, so it listens on loopback only (127.0.0.1, ::1, localhost); for workers on other machines run a nats-server with TLS and credentials and pass --queue", listen)
		}
		opts.Host = host
		if opts.Port, err = strconv.Atoi(port); err != nil {
			return nil, fault.Wrap(fault.Schema, err, "listen port")
		}
		if opts.Port == 0 {
			opts.Port = server.RANDOM_PORT
		}
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		lock.Close()
		return nil, err
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		lock.Close()
		return nil, errors.New("the embedded NATS server did not start within 10 s")
	}
	return &Server{ns: ns, lock: lock}, nil
}

// lockDir creates dir and takes its lock, refusing a second server on the same storage.
func lockDir(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, fault.New(fault.Limit, "another rlm batch is running the embedded queue in %s; wait for it, give this batch another RLM_HOME, or start that one with --listen and pass its address here with --queue", dir)
	}
	return f, nil
}

// Conn connects to the server in process, without a socket.
func (s *Server) Conn() (*nats.Conn, error) {
	return nats.Connect("", nats.InProcessServer(s.ns), nats.Name("rlm batch"))
}

// URL is the server's client URL ("" without a listener).
func (s *Server) URL() string {
	if s.ns.Addr() == nil {
		return ""
	}
	return s.ns.ClientURL()
}

// Close shuts the server down, flushing its storage.
func (s *Server) Close() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
	s.lock.Close()
}

// Dial says how to reach a NATS server.
type Dial struct {
	URL   string // nats://HOST:PORT or tls://HOST:PORT; a comma-separated list for a cluster
	Creds string // a credentials file (JWT and NKey seed)
	// CA, Cert and Key are PEM files: the CA that signed the server's certificate, and this
	// client's certificate and key for mutual TLS.
	CA, Cert, Key string
	// Insecure allows a server that is not on loopback without TLS or credentials.
	Insecure bool
	Name     string // the connection's name, shown by the server
}

// Connect connects, refusing a server off this machine without TLS or credentials unless
// Insecure. It retries a lost connection for ever.
func (d Dial) Connect() (*nats.Conn, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	opts := []nats.Option{nats.Name(d.Name), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second)}
	if d.CA != "" || d.Cert != "" { // first: it sets the TLS config the next two fill in
		opts = append(opts, nats.Secure(&tls.Config{MinVersion: tls.VersionTLS12}))
	}
	if d.Creds != "" {
		opts = append(opts, credentials(d.Creds))
	}
	if d.CA != "" || d.Cert != "" {
		opts = append(opts, tlsFiles(d.CA, d.Cert, d.Key))
	}
	nc, err := nats.Connect(d.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("connecting to the queue %s: %w", d.URL, err)
	}
	return nc, nil
}

// check refuses a server off this machine without TLS or credentials unless Insecure.
func (d Dial) check() error {
	secured := d.Creds != "" || d.CA != "" || d.Cert != ""
	for _, u := range strings.Split(d.URL, ",") {
		pu, err := url.Parse(strings.TrimSpace(u))
		if err != nil || pu.Host == "" {
			return fault.New(fault.Schema, "queue URL %q: want nats://HOST:PORT or tls://HOST:PORT", u)
		}
		if !loopback(pu.Hostname()) && !secured && pu.Scheme != "tls" && !d.Insecure {
			return fault.New(fault.Denied, "queue %s is not on this machine and no TLS or credentials are set: tasks, inputs and answers would cross the network in the clear to anyone who can connect; pass --creds FILE and a tls:// URL (or --tls-ca), or --insecure on a network you trust", pu.Redacted())
		}
	}
	if (d.Cert == "") != (d.Key == "") {
		return fault.New(fault.Schema, "--tls-cert and --tls-key go together")
	}
	return nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
