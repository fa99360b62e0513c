package mcpserver

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxTrace is the largest trace sent as a resource; a larger one is named by its path.
const maxTrace = 16 << 20

const tracePrefix = "rlm://trace/"

// maxTraces is how many runs' traces the server lists, the newest; older ones stay on disk.
const maxTraces = 100

func traceURI(task string) string { return tracePrefix + task }

// run is an rlm_ask run's trace, and the client connection that ran it: the only one that may
// list and read it (it holds the question, the answer and what the run read).
type run struct {
	path  string
	owner *mcp.ServerSession
}

// addTrace makes a run's trace a resource; clients that listen are told the list changed.
func (s *Server) addTrace(task, path, question string, owner *mcp.ServerSession) {
	s.mu.Lock()
	s.runs[task] = run{path: path, owner: owner}
	s.order = append(s.order, task)
	var old string
	if len(s.order) > maxTraces {
		old, s.order = s.order[0], s.order[1:]
		delete(s.runs, old)
	}
	s.mu.Unlock()
	if old != "" {
		s.mcp.RemoveResources(traceURI(old))
	}
	s.mcp.AddResource(&mcp.Resource{URI: traceURI(task), Name: "trace-" + task, Title: "rlm trace: " + clip(question, 80),
		Description: "The JSONL trace of rlm run " + task + " (the reference RLM logger's format): " + clip(question, 200),
		MIMEType:    "application/x-ndjson"}, s.readTrace)
}

// readTrace serves one of this server's traces, and only to the client that ran it.
func (s *Server) readTrace(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	s.mu.Lock()
	r, ok := s.runs[strings.TrimPrefix(uri, tracePrefix)]
	s.mu.Unlock()
	if !strings.HasPrefix(uri, tracePrefix) || !ok || r.owner != req.Session {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	f, err := os.Open(r.path)
	if err != nil {
		return nil, fmt.Errorf("reading the trace of %s: %w", uri, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTrace+1))
	if err != nil {
		return nil, fmt.Errorf("reading the trace of %s: %w", uri, err)
	}
	if len(b) > maxTrace {
		return nil, fmt.Errorf("the trace of %s is over %d MiB, more than this server sends; read the file %s, or run rlm trace summary on it", uri, maxTrace>>20, r.path)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/x-ndjson", Text: string(b)}}}, nil
}

// ownTraces leaves out of a client's resources/list the traces of other clients' runs, and
// marks the list private to the client.
func (s *Server) ownTraces(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListResourcesResult)
		if err != nil || !ok {
			return res, err
		}
		owner, _ := req.GetSession().(*mcp.ServerSession)
		kept := make([]*mcp.Resource, 0, len(list.Resources))
		s.mu.Lock()
		for _, r := range list.Resources {
			run, ok := s.runs[strings.TrimPrefix(r.URI, tracePrefix)]
			if !strings.HasPrefix(r.URI, tracePrefix) || ok && run.owner == owner {
				kept = append(kept, r)
			}
		}
		s.mu.Unlock()
		list.Resources, list.CacheScope = kept, "private"
		return list, nil
	}
}
