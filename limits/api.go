package limits

// API are the caps of the model-facing API, as the model is told them: per call, per cell and
// per run. The zero value of a field means its default (the constant of the same name); zero
// never means unlimited. The API's doc lines (engine.API) name these fields as placeholders
// ("at most {PeekChars} per call"), and engine's Describe fills them in from the limits a run
// actually enforces, so the system prompt cannot state a cap the sandbox does not apply.
//
// The packages that enforce a cap take their values from here: tools for the context and file
// tools, the engines for output and answers, the controller for sub-calls. Each field's tag
// names its entry in Table, which describes it.
type API struct {
	PeekChars     int `limit:"limits.peek_chars"`
	SearchResults int `limit:"limits.search_results"`
	MatchChars    int `limit:"limits.match_chars"`
	Chunks        int `limit:"limits.chunks"`
	TallyResults  int `limit:"limits.tally_results"`
	TextChars     int `limit:"limits.text_chars"`
	ReadChars     int `limit:"limits.read_chars"`
	GrepResults   int `limit:"limits.grep_results"`
	WriteBytes    int `limit:"limits.write_bytes"`
	FileCalls     int `limit:"limits.file_calls"`
	OutputChars   int `limit:"limits.output_chars"`
	FinalChars    int `limit:"limits.final_chars"`
	SubCalls      int `limit:"limits.max_subcalls"`
	Batches       int `limit:"limits.max_batches"`
	BatchWidth    int `limit:"limits.batch_width"`
}

// Effective returns l with every zero or negative field replaced by its default.
func (l API) Effective() API {
	for _, f := range []struct {
		v   *int
		def int
	}{
		{&l.PeekChars, PeekChars}, {&l.SearchResults, SearchResults}, {&l.MatchChars, MatchChars},
		{&l.Chunks, Chunks}, {&l.TallyResults, TallyResults}, {&l.TextChars, TextChars}, {&l.ReadChars, ReadChars},
		{&l.GrepResults, GrepResults}, {&l.WriteBytes, WriteBytes}, {&l.FileCalls, FileCalls},
		{&l.OutputChars, OutputChars}, {&l.FinalChars, FinalChars}, {&l.SubCalls, SubCalls},
		{&l.Batches, Batches}, {&l.BatchWidth, BatchWidth},
	} {
		*f.v = Or(*f.v, f.def)
	}
	return l
}
