package batch

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/rlm-sandbox/rlm/tools"
)

// maxCredentialFile is the largest credentials, CA, certificate or key file read.
const maxCredentialFile = 1 << 20

// readCredential reads a file that Dial names (flag is its option in messages): a regular file
// of at most maxCredentialFile bytes, so a fifo is refused rather than waited on.
func readCredential(flag, path string) ([]byte, error) {
	b, err := tools.ReadRegular(path, maxCredentialFile)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return b, nil
}

// credentials signs in with the NATS credentials file at path (a user JWT and an NKey seed),
// read again at each connection as nats.UserCredentials reads it, but through readCredential.
func credentials(path string) nats.Option {
	user := func() (string, error) {
		b, err := readCredential("--creds", path)
		if err != nil {
			return "", err
		}
		defer clear(b)
		jwt, err := nkeys.ParseDecoratedJWT(b)
		if err != nil {
			return "", fmt.Errorf("--creds %s: %w; pass a NATS credentials file (nsc generate creds)", path, err)
		}
		return jwt, nil
	}
	sign := func(nonce []byte) ([]byte, error) {
		b, err := readCredential("--creds", path)
		if err != nil {
			return nil, err
		}
		defer clear(b)
		kp, err := nkeys.ParseDecoratedNKey(b)
		if err != nil {
			return nil, fmt.Errorf("--creds %s holds no NKey seed: %w; pass a NATS credentials file (nsc generate creds)", path, err)
		}
		defer kp.Wipe()
		return kp.Sign(nonce)
	}
	return nats.UserJWT(user, sign)
}

// tlsFiles sets the CA that signed the server's certificate (ca) and this client's certificate
// and key, each read again at each connection as nats.RootCAs and nats.ClientCert read them,
// but through readCredential. An empty name is not used.
func tlsFiles(ca, cert, key string) nats.Option {
	var certs nats.TLSCertHandler
	if cert != "" {
		certs = func() (tls.Certificate, error) {
			c, err := readCredential("--tls-cert", cert)
			if err != nil {
				return tls.Certificate{}, err
			}
			k, err := readCredential("--tls-key", key)
			if err != nil {
				return tls.Certificate{}, err
			}
			defer clear(k)
			pair, err := tls.X509KeyPair(c, k)
			if err != nil {
				return tls.Certificate{}, fmt.Errorf("--tls-cert %s, --tls-key %s: %w; pass this client's certificate and its key, both PEM", cert, key, err)
			}
			return pair, nil
		}
	}
	var roots nats.RootCAsHandler
	if ca != "" {
		roots = func() (*x509.CertPool, error) {
			b, err := readCredential("--tls-ca", ca)
			if err != nil {
				return nil, err
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(b) {
				return nil, fmt.Errorf("--tls-ca %s holds no PEM certificate; pass the certificate of the CA that signed the server's", ca)
			}
			return pool, nil
		}
	}
	return nats.ClientTLSConfig(certs, roots)
}
