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
	setting     string // where the URL is set: "RLM_BASE_URL", "base_url in [backends.NAME]"
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
	return &connectError{url: strings.TrimSuffix(base, "/"), reason: reason, setting: ep.setting(), err: err}
}

// setting is where the backend's URL is set, for a message that tells how to fix it.
func (ep *endpoint) setting() string {
	if ep == nil || ep.name == DefaultEndpointName {
		return "RLM_BASE_URL"
	}
	return "base_url in [backends." + ep.name + "]"
}

// notify sends a line a person waiting on the run should see now (Config.Notify).
func (c *Client) notify(format string, args ...any) {
	if c.cfg.Notify != nil {
		c.cfg.Notify(c.red(fmt.Sprintf(format, args...)))
	}
}

// clock formats a time of day for a notice.
func clock(t time.Time) string { return t.Format("15:04:05") }

// MissingKey returns a warning when cfg's default backend has no API key and is not on this
// machine: a remote server usually refuses calls without one. It returns "" otherwise. A Client
// checks every backend its ladders use and tells each warning (Config.Notify) before its first
// call.
func MissingKey(cfg Config) string {
	base := cfg.BaseURL
	if base == "" {
		base = map[Provider]string{ProviderAnthropic: DefaultAnthropicBaseURL}[cfg.Provider]
	}
	if base == "" {
		base = DefaultBaseURL
	}
	vars := "RLM_API_KEY and OPENAI_API_KEY are"
	if cfg.Provider == ProviderAnthropic {
		vars = "RLM_API_KEY and ANTHROPIC_API_KEY are"
	}
	return missingKey(Endpoint{BaseURL: base, APIKey: cfg.APIKey, Backend: cfg.Backend}, vars)
}

// missingKeys are the warnings for the backends of the client's ladders that have no key.
func (c *Client) missingKeys() []string {
	seen := map[string]bool{}
	var out []string
	for _, ladder := range c.res.ladders {
		for _, m := range ladder {
			name := m.ep.name
			if seen[name] {
				continue
			}
			seen[name] = true
			msg := MissingKey(c.cfg)
			if name != DefaultEndpointName {
				e := c.cfg.Endpoints[name]
				e.BaseURL = m.ep.baseURL
				msg = missingKey(e, "the variable that api_key_env of [backends."+name+"] names is")
			}
			if msg != "" {
				out = append(out, msg)
			}
		}
	}
	return out
}

// missingKey is the warning for a backend without a key at a remote URL, or "".
func missingKey(e Endpoint, vars string) string {
	if e.APIKey != "" || e.Backend != nil {
		return ""
	}
	u, err := url.Parse(e.BaseURL)
	if err != nil || isLoopback(u.Hostname()) {
		return ""
	}
	return fmt.Sprintf("no API key for %s: %s unset, so a server that needs a key will refuse every call", strings.TrimSuffix(e.BaseURL, "/"), vars)
}

func isLoopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
