package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
)

// TestConverters: a [convert] entry is an argv or a table with caps; a trusted project file's
// entry replaces the user file's of the same extension, and each is listed with its source.
func TestConverters(t *testing.T) {
	user := "[convert]\npdf = [\"pdftotext\", \"-layout\", \"{path}\", \"-\"]\ndocx = [\"pandoc\", \"{path}\"]\n"
	project := "[convert]\ndocx = { exec = [\"pandoc\", \"--to\", \"plain\", \"{path}\"], timeout = \"5m\", max_output = \"1MiB\" }\n"
	o := setup(t, project, user, nil, nil)
	c, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	pdf, docx := c.Convert["pdf"], c.Convert["docx"]
	if !slices.Equal(pdf.Exec, []string{"pdftotext", "-layout", "{path}", "-"}) || pdf.Timeout != 0 || pdf.MaxOutput != 0 {
		t.Errorf("pdf: %+v", pdf)
	}
	if !slices.Equal(docx.Exec, []string{"pandoc", "--to", "plain", "{path}"}) || docx.Timeout != 5*time.Minute || docx.MaxOutput != 1<<20 {
		t.Errorf("docx: %+v, want the project file's", docx)
	}
	if c.Source("convert.docx").Name != o.ProjectFile || c.Source("convert.pdf").Name != o.UserFile {
		t.Errorf("sources: docx %v, pdf %v", c.Source("convert.docx"), c.Source("convert.pdf"))
	}
	var listed []string
	for _, e := range c.Entries() {
		if strings.HasPrefix(e.Key, "convert.") {
			listed = append(listed, e.Key+" = "+e.Text+"; "+e.Note)
		}
	}
	want := []string{`convert.docx = ["pandoc", "--to", "plain", "{path}"]; timeout 5m, max_output 1 MiB`,
		`convert.pdf = ["pdftotext", "-layout", "{path}", "-"]; timeout 2m, max_output 64 MiB`}
	if !slices.Equal(listed, want) {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(listed, "\n"), strings.Join(want, "\n"))
	}
}

// TestBadConverters: each wrong entry is refused with the file, the key and what to write.
func TestBadConverters(t *testing.T) {
	for _, tc := range []struct{ entry, want string }{
		{`PDF = ["pdftotext", "{path}"]`, `"PDF" is not a file extension as [convert] keys them: write it without the dot, in lower case`},
		{`"tar.gz" = ["tar", "{path}"]`, `"tar.gz" is not a file extension`},
		{`pdf = "pdftotext {path}"`, `want the command as a list of strings`},
		{`pdf = []`, `exec is empty`},
		{`pdf = ["pdftotext", "-layout", "-"]`, `exec names no {path}; put {path} where the program takes the file`},
		{`pdf = ["pdftotext", "{file}"]`, `exec uses {file}, which is not a parameter`},
		{`pdf = ["{path}"]`, `holds a placeholder; the program must be fixed`},
		{`pdf = { exec = ["pdftotext", "{path}"], timeout = "0s" }`, `timeout: want 1s to 24h`},
		{`pdf = { exec = ["pdftotext", "{path}"], max_output = "2GiB" }`, `max_output: want 1 KiB to 1 GiB`},
		{`pdf = { exec = ["pdftotext", "{path}"], env = ["X"] }`, `unknown key env; an entry's keys are exec, timeout and max_output`},
	} {
		o := setup(t, "", "[convert]\n"+tc.entry+"\n", nil, nil)
		_, err := Load(o)
		if !errors.Is(err, fault.Schema) || !strings.Contains(err.Error(), o.UserFile) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want a schema error naming the file and saying %q", tc.entry, err, tc.want)
		}
	}
}
