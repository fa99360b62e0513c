package llm

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// connectError is a failure to reach the model server at all, worded for a person: "cannot
// connect to http://HOST/v1: connection refused". It wraps the transport's error, so its
// classification (transport or connect timeout, retried) does not change.
type connectError struct {
	url, reason string
	err         error
}

func (e *connectError) Error() string { return "cannot connect to " + e.url + ": " + e.reason }
func (e *connectError) Unwrap() error { return e.err }

// explain turns a dial or name-resolution failure of an attempt on ep into a *connectError;
// other errors are returned as they are.
func (c *Client) explain(ep *endpoint, err error) error {
	var op *net.OpError
	var dns *net.DNSError
	var reason string
	switch {
	case err == nil:
		return nil
	case errors.As(err, &dns):
		reason = "no such host"
		if !dns.IsNotFound {
			reason = "cannot resolve " + dns.Name + " (" + dns.Err + ")"
		}
	case !errors.As(err, &op) || op.Op != "dial":
		return err
	case errors.Is(err, syscall.ECONNREFUSED):
		reason = "connection refused"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		reason = "no route to the host"
	case op.Timeout():
		reason = fmt.Sprintf("no answer within %s", c.cfg.ConnectTimeout)
	default:
		reason = op.Err.Error()
	}
	base := c.cfg.BaseURL
	if ep != nil && ep.baseURL != "" {
		base = ep.baseURL
	}
	return &connectError{url: strings.TrimSuffix(base, "/"), reason: reason, err: err}
}

// notify sends a line a person waiting on the run should see now (Config.Notify).
func (c *Client) notify(format string, args ...any) {
	if c.cfg.Notify != nil {
		c.cfg.Notify(c.red(fmt.Sprintf(format, args...)))
	}
}

// clock formats a time of day for a notice.
func clock(t time.Time) string { return t.Format("15:04:05") }

// MissingKey returns a warning when cfg has no API key and its server is not on this machine:
// a remote server usually refuses calls without one. It returns "" otherwise.
func MissingKey(cfg Config) string {
	if cfg.APIKey != "" || cfg.Backend != nil {
		return ""
	}
	base := cfg.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || isLoopback(u.Hostname()) {
		return ""
	}
	return fmt.Sprintf("no API key for %s: RLM_API_KEY and OPENAI_API_KEY are unset, so a server that needs a key will refuse every call", strings.TrimSuffix(base, "/"))
}

func isLoopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
