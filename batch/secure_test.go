package batch_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/batch"
)

// startServer starts a nats-server on a loopback port with JetStream and opts's security
// settings, and returns its port.
func startServer(t *testing.T, opts *server.Options) int {
	t.Helper()
	opts.Host, opts.Port, opts.JetStream, opts.StoreDir = "127.0.0.1", server.RANDOM_PORT, true, t.TempDir()
	opts.NoLog, opts.NoSigs = true, true
	ns, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	return ns.Addr().(*net.TCPAddr).Port
}

// runScripts runs two script tasks through a JetStream queue on d's connection, with a local
// worker, and checks both answers.
func runScripts(t *testing.T, d batch.Dial) {
	t.Helper()
	nc, err := d.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	dir := t.TempDir()
	q, err := batch.NewJetStream(context.Background(), nc, batch.JetStreamOptions{Coordinator: true, CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"in.txt":     "alpha\nbeta\ngamma\n",
		"count.js":   "FINAL(`${text(context).trim().split(\"\\n\").length} lines`)",
		"tasks.json": `{"id":"a","script":"count.js","files":["in.txt"]}` + "\n" + `{"id":"b","script":"count.js","files":["in.txt"]}` + "\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tasks, err := batch.ReadTasks(filepath.Join(dir, "tasks.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results.jsonl")
	base := rlm.Options{Home: filepath.Join(dir, "home"), Quiet: true, NoLog: true}
	sum, err := batch.Run(context.Background(), batch.Config{Tasks: tasks, Out: out, Queue: q,
		Local: &batch.Worker{Queue: q, Base: base, Parallel: 2}})
	if err != nil || sum.Done != 2 || sum.Failed != 0 {
		t.Fatalf("batch over %s: %+v, %v; want 2 done", d.URL, sum, err)
	}
	for _, r := range readResults(t, out) {
		if r.Answer != "3 lines" {
			t.Errorf("%s: %+v, want the answer 3 lines", r.ID, r)
		}
	}
}

// TestCredsServer: --creds works against a nats-server in operator mode (JWT accounts): a
// batch runs through it with a user's credentials file, and a user the account did not sign,
// or no credentials, is refused.
func TestCredsServer(t *testing.T) {
	op := newOperator(t)
	_, sysPub, sysJWT := op.account(false)
	app, appPub, appJWT := op.account(true)
	other, _, _ := op.account(true) // never told to the server
	resolver := &server.MemAccResolver{}
	op.must(resolver.Store(sysPub, sysJWT))
	op.must(resolver.Store(appPub, appJWT))
	port := startServer(t, &server.Options{TrustedOperators: []*jwt.OperatorClaims{op.claims}, SystemAccount: sysPub, AccountResolver: resolver})
	url := "nats://127.0.0.1:" + strconv.Itoa(port)

	runScripts(t, batch.Dial{URL: url, Creds: op.creds("app.creds", app), Name: "creds test"})
	for name, d := range map[string]batch.Dial{
		"stranger": {URL: url, Creds: op.creds("other.creds", other)},
		"none":     {URL: url},
	} {
		nc, err := d.Connect()
		if err == nil {
			nc.Close()
			t.Errorf("%s: connected; want refused", name)
		} else if !strings.Contains(err.Error(), "uthorization") {
			t.Errorf("%s: %v; want an authorization error", name, err)
		}
	}
}

// operator is a NATS operator's keys, signing accounts, whose keys sign users.
type operator struct {
	t      *testing.T
	key    nkeys.KeyPair
	claims *jwt.OperatorClaims
}

func newOperator(t *testing.T) *operator {
	op := &operator{t: t}
	var err error
	op.key, err = nkeys.CreateOperator()
	op.must(err)
	pub, err := op.key.PublicKey()
	op.must(err)
	enc, err := jwt.NewOperatorClaims(pub).Encode(op.key)
	op.must(err)
	op.claims, err = jwt.DecodeOperatorClaims(enc)
	op.must(err)
	return op
}

func (op *operator) must(err error) {
	op.t.Helper()
	if err != nil {
		op.t.Fatal(err)
	}
}

// account makes an account (with JetStream when js) and returns its key, public key and JWT.
func (op *operator) account(js bool) (nkeys.KeyPair, string, string) {
	kp, err := nkeys.CreateAccount()
	op.must(err)
	pub, err := kp.PublicKey()
	op.must(err)
	ac := jwt.NewAccountClaims(pub)
	if js {
		ac.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
	}
	enc, err := ac.Encode(op.key)
	op.must(err)
	return kp, pub, enc
}

// creds writes the credentials file of a new user of the account signer.
func (op *operator) creds(name string, signer nkeys.KeyPair) string {
	user, err := nkeys.CreateUser()
	op.must(err)
	pub, err := user.PublicKey()
	op.must(err)
	ujwt, err := jwt.NewUserClaims(pub).Encode(signer)
	op.must(err)
	seed, err := user.Seed()
	op.must(err)
	body, err := jwt.FormatUserConfig(ujwt, seed)
	op.must(err)
	path := filepath.Join(op.t.TempDir(), name)
	op.must(os.WriteFile(path, body, 0o600))
	return path
}

// TestTLSServer: --tls-ca, --tls-cert and --tls-key work against a nats-server that requires
// mutual TLS: a batch runs through it, and a client without a certificate is refused.
func TestTLSServer(t *testing.T) {
	dir := t.TempDir()
	ca, caKey := newCert(t, dir, "ca", nil, nil)
	newCert(t, dir, "server", ca, caKey)
	newCert(t, dir, "client", ca, caKey)
	pemFile := func(name string) string { return filepath.Join(dir, name) }
	tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: pemFile("server.pem"), KeyFile: pemFile("server.key"), CaFile: pemFile("ca.pem"), Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	port := startServer(t, &server.Options{TLS: true, TLSVerify: true, TLSConfig: tc, TLSTimeout: 5})
	url := "tls://127.0.0.1:" + strconv.Itoa(port)

	runScripts(t, batch.Dial{URL: url, CA: pemFile("ca.pem"), Cert: pemFile("client.pem"), Key: pemFile("client.key")})
	if nc, err := (batch.Dial{URL: url, CA: pemFile("ca.pem")}).Connect(); err == nil {
		nc.Close()
		t.Error("a client without a certificate connected; want refused")
	} else if !strings.Contains(err.Error(), "tls") && !strings.Contains(err.Error(), "EOF") {
		t.Errorf("a client without a certificate: %v; want the TLS handshake refused", err)
	}
}

// newCert writes NAME.pem and NAME.key into dir: a CA when parent is nil, else a certificate
// for 127.0.0.1 signed by parent, good for servers and clients.
func newCert(t *testing.T, dir, name string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: "rlm test " + name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
		parent, parentKey = tmpl, key
	} else {
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	write := func(file, typ string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, file), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(name+".pem", "CERTIFICATE", der)
	write(name+".key", "EC PRIVATE KEY", keyDER)
	return cert, key
}
