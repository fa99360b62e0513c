// Package batch runs many rlm tasks: a tasks file in, a results file out, through a queue
// that carries jobs to workers on this machine or many.
//
// A tasks file has one JSON object per line: {"id", "question" | "script", "files", "lang",
// "limits"} (ReadTasks). A task's limits only lower those of the worker that runs it. Run queues every task without a result in the results file, runs
// them on its local Worker and on any other worker reading the same queue, and appends one
// line per task to the results file (Result: rlm run --json's shape, with the id, timing,
// worker and attempt). Each line is written whole and synced, and a task id never appears
// twice, so a batch stopped at any point (SIGINT, a crash, a spent shared budget) is resumed
// by running it again: tasks with a result are skipped, the others queued again. With
// Config.RetryFailed the failed results move to RetriedPath first and their tasks run again.
// A batch whose model service fails OutageStop tasks in a row (llm.ErrUnavailable) stops as
// one whose budget is spent does.
//
// The results file is checked to be one (every line a result line) before anything is written
// to it; a link is followed to its target. The lines stay in the file: a batch keeps one status
// per task in memory, so its memory does not grow with the results it writes.
//
// A Worker runs each job with rlm.Ask, as rlm run would: same options, same confinement,
// same records in its own RLM_HOME. A job comes from a queue that others may write to, so it
// is checked as a task line is, and its limits are capped by the worker's (Result.Notes says
// when). It extends the job's lease while it runs (Delivery.Touch),
// hands the job back when stopped, and records a job that has been started
// limits.JobAttempts times without finishing as failed.
//
// Two queues implement Queue: NewMemQueue, channels in one process; and NewJetStream, NATS
// JetStream: a work-queue stream of jobs with explicit acks and redelivery after the ack wait,
// a stream of results (read back from the start on resume), and an object store of inputs
// named by their SHA-256, fetched once per worker and cached by hash. Embedded starts a NATS
// server in the process (JetStream, file storage, no network listener unless asked), so a
// batch on one machine goes through the same code as one spread over many.
package batch
