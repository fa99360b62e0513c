package llm

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// sseEvent is one server-sent event: its "event:" name and its "data:"
// lines joined by newlines.
type sseEvent struct {
	name string
	data []byte
}

// sseReader reads server-sent events (the WHATWG text/event-stream format):
// lines "field: value" (one optional space after the colon), comments
// starting with ":", "data" lines joined by "\n", an event dispatched at each
// blank line; LF, CRLF or CR line ends. id and retry fields are ignored.
type sseReader struct {
	r   *bufio.Reader
	max int // bytes per line and per event
}

// maxSSELine bounds one line and one event's data: a stream that sends more
// without a line break is broken, not a model's answer.
const maxSSELine = 4 << 20

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10), max: maxSSELine}
}

// next returns the next event; io.EOF when the stream ended cleanly between
// events, io.ErrUnexpectedEOF when it ended inside one.
func (s *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	var data bytes.Buffer
	started, hasData := false, false
	for {
		line, err := s.line()
		if err != nil {
			if errors.Is(err, io.EOF) && started {
				return ev, io.ErrUnexpectedEOF
			}
			return ev, err
		}
		if len(line) == 0 {
			if hasData || ev.name != "" {
				ev.data = data.Bytes()
				return ev, nil
			}
			continue
		}
		started = true
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			ev.name = string(value)
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			if data.Len()+len(value) > s.max {
				return ev, fmt.Errorf("server-sent event larger than %d bytes", s.max)
			}
			data.Write(value)
			hasData = true
		}
	}
}

// line reads one line without its end (LF, CRLF or CR).
func (s *sseReader) line() ([]byte, error) {
	var out []byte
	for {
		b, err := s.r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) && len(out) > 0 {
				return out, nil
			}
			return nil, err
		}
		switch b {
		case '\n':
			return out, nil
		case '\r':
			if nb, err := s.r.Peek(1); err == nil && nb[0] == '\n' {
				s.r.ReadByte()
			}
			return out, nil
		}
		if len(out) >= s.max {
			return nil, fmt.Errorf("server-sent event line longer than %d bytes", s.max)
		}
		out = append(out, b)
	}
}
