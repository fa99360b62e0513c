module example.com/rlmdemo

go 1.26.0

require github.com/rlm-sandbox/rlm v0.0.0

replace github.com/rlm-sandbox/rlm => ../..
