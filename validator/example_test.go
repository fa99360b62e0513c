package validator_test

import (
	"fmt"
	"go/ast"

	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/validator"
)

// A cell is validated once; the findings say where, which rule, and what to do instead.
func ExampleValidate() {
	src := []byte(`import "os"

data, _ := os.ReadFile("/etc/shadow")
print(string(data))
`)
	res, err := validator.Validate(source.Go, "cell.go", src, validator.Policy{})
	if err != nil {
		panic(err)
	}
	for _, f := range res.Findings {
		fmt.Printf("%s %s %s\n", f.Pos, f.Rule, f.Class)
	}
	// Output:
	// cell.go:1:8 import-denied G1
}

// A snippet's declarations and statements come back separately, parsed from the text as written,
// ready for the engine to compile without parsing again.
func ExampleGoUnit() {
	src := []byte(`import "strings"

func shout(s string) string { return strings.ToUpper(s) }

msg := shout("hi")
fmt.Println(msg)
`)
	res, _ := validator.Validate(source.Go, "cell.go", src, validator.Policy{})
	u := res.Go
	fmt.Println("declarations:", len(u.Decls.Decls), "statements:", len(u.Body.List))
	call := u.Body.List[1].(*ast.ExprStmt).X
	fmt.Println("fmt.Println is at", u.Position(call.Pos()))
	// Output:
	// declarations: 2 statements: 2
	// fmt.Println is at cell.go:6:1
}
