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

// addTrace makes a run's trace a resource; clients that listen are told the list changed.
func (s *Server) addTrace(task, path, question string) {
	s.mu.Lock()
	s.runs[task] = path
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

// readTrace serves one of this server's traces, and only those.
func (s *Server) readTrace(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	s.mu.Lock()
	path, ok := s.runs[strings.TrimPrefix(uri, tracePrefix)]
	s.mu.Unlock()
	if !strings.HasPrefix(uri, tracePrefix) || !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the trace of %s: %w", uri, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTrace+1))
	if err != nil {
		return nil, fmt.Errorf("reading the trace of %s: %w", uri, err)
	}
	if len(b) > maxTrace {
		return nil, fmt.Errorf("the trace of %s is over %d MiB, more than this server sends; read the file %s, or run rlm trace summary on it", uri, maxTrace>>20, path)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/x-ndjson", Text: string(b)}}}, nil
}
