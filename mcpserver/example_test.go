package mcpserver_test

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm/mcpserver"
)

// A server serves a client over any MCP transport; here an in-memory one, where `rlm mcp`
// uses stdio. The client opens a sandbox session on the demo log and runs two cells in it.
func Example() {
	home, err := os.MkdirTemp("", "rlm-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(home)
	srv, err := mcpserver.New(mcpserver.Options{Home: home, Roots: []string{"../examples/demo"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clientEnd, serverEnd := mcp.NewInMemoryTransports()
	go srv.Run(ctx, serverEnd)

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sandbox_open", Arguments: map[string]any{"lang": "js", "files": []string{"app.log"}}})
	session := res.StructuredContent.(map[string]any)["session"]
	for _, code := range []string{
		`const errs = search(context, "ERROR svc=payment"); print(errs.length, "payment errors")`,
		`require("fs")`,
	} {
		res, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "sandbox_exec", Arguments: map[string]any{"session": session, "code": code}})
		out := res.StructuredContent.(map[string]any)
		fmt.Printf("%q %v\n", out["output"], out["error"] != nil)
	}
	// Output:
	// "13 payment errors\n" false
	// "" true
}
