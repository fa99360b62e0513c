package config

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

var tomlBlock = regexp.MustCompile("(?s)```toml\n(.*?)```")

// TestDocumentedConfigs loads every TOML block of the README and docs/models.md as a project
// file: each uses only keys Load knows, with values in range, and gives a usable model client
// configuration (keys read from variables set here to placeholders).
func TestDocumentedConfigs(t *testing.T) {
	env := map[string]string{}
	for _, v := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "GEMINI_API_KEY", "VLLM_API_KEY"} {
		env[v] = "placeholder-key"
	}
	for _, doc := range []string{"../README.md", "../docs/models.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		blocks := tomlBlock.FindAllStringSubmatch(string(b), -1)
		if len(blocks) == 0 {
			t.Fatalf("%s has no TOML block", doc)
		}
		for i, m := range blocks {
			t.Run(filepath.Base(doc)+"#"+strconv.Itoa(i+1), func(t *testing.T) {
				o := setup(t, m[1], "", env, nil)
				c, err := Load(o)
				if err != nil {
					t.Fatalf("%v\n%s", err, m[1])
				}
				if len(c.Model) == 0 {
					return // a fragment without a root model (the Keys block names one)
				}
				if _, err := c.LLM(nil); err != nil {
					t.Fatalf("%v\n%s", err, m[1])
				}
			})
		}
	}
}
