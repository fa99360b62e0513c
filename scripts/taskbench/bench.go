package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rlm-sandbox/rlm/taskset"
)

// floor is an empty cell in one language: the whole-process time that every cell's includes.
type floor struct {
	lang        string
	rlm, native process
	rlmT, natT  timed
}

const floorName = "zz-empty"

// prepare writes the cells for rlm, builds the native programs, and sets each cell's processes;
// a cell that cannot be built natively is skipped. It returns the floors of the languages run.
func prepare(c contenders, cells []*cell, data *taskset.Data) (map[string]*floor, error) {
	for _, d := range []string{c.home, filepath.Join(c.dir, "cells")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	goCells := map[string]string{}
	floors := map[string]*floor{}
	for _, x := range cells {
		if floors[x.lang] == nil {
			floors[x.lang] = &floor{lang: x.lang}
			if x.lang == "go" {
				goCells[floorName] = ""
			}
		}
		if x.lang == "go" && x.skip == "" {
			goCells[x.task.Name] = x.task.Cells["go"]
		}
	}
	var bins, failed map[string]string
	if len(goCells) > 0 {
		var err error
		if bins, failed, err = buildGo(c.dir, goCells); err != nil {
			return nil, err
		}
	}
	for _, x := range cells {
		var inputs []string
		for _, in := range x.task.Inputs {
			inputs = append(inputs, filepath.Join(data.Dir, in))
		}
		program, err := c.programs(x.lang, x.task.Name, x.task.Cells[x.lang], bins)
		if err != nil {
			return nil, err
		}
		x.rlm = c.rlmRun(filepath.Join(c.dir, "cells", x.task.Name+"."+x.lang), inputs)
		x.native = c.native(x.lang, program, inputs)
		if msg := failed[x.task.Name]; x.lang == "go" && msg != "" && x.skip == "" {
			x.skip = msg
		}
	}
	for lang, f := range floors {
		if msg := failed[floorName]; lang == "go" && msg != "" {
			return nil, fmt.Errorf("the empty Go program does not build: %s", msg)
		}
		program, err := c.programs(lang, floorName, "", bins)
		if err != nil {
			return nil, err
		}
		inputs := []string{filepath.Join(data.Dir, "server.log")}
		f.rlm = c.rlmRun(filepath.Join(c.dir, "cells", floorName+"."+lang), inputs)
		f.native = c.native(lang, program, inputs)
	}
	return floors, nil
}

// programs writes a cell's file for rlm and returns its native program: the Go binary, or the
// script for node.
func (c contenders) programs(lang, name, src string, bins map[string]string) (string, error) {
	if err := os.WriteFile(filepath.Join(c.dir, "cells", name+"."+lang), []byte(src), 0o644); err != nil {
		return "", err
	}
	if lang == "js" {
		return writeJS(c.dir, name, src)
	}
	return bins[name], nil
}

// measureFloors times the empty cells, at least 5 runs each.
func measureFloors(floors map[string]*floor, runs int) error {
	for _, f := range floors {
		for r := range max(runs, 5) + 1 {
			for _, p := range []struct {
				proc process
				t    *timed
			}{{f.rlm, &f.rlmT}, {f.native, &f.natT}} {
				_, d, err := p.proc.run()
				if err != nil && !errors.Is(err, errNoFinal) {
					return fmt.Errorf("the empty %s cell: %v", f.lang, err)
				}
				if r > 0 {
					*p.t = append(*p.t, d)
				}
			}
		}
	}
	return nil
}

// measure runs a cell once in each contender, untimed, checking the answers, then runs times,
// rlm and native alternating which goes first; every answer is checked. A failure skips the
// cell with the reason.
func measure(x *cell, runs int) {
	for r := -1; r < runs; r++ {
		order := []string{"rlm", "native"}
		if r%2 != 0 {
			order = []string{"native", "rlm"}
		}
		answers := map[string]string{}
		for _, who := range order {
			p := x.rlm
			if who == "native" {
				p = x.native
			}
			ans, d, err := p.run()
			if err == nil {
				err = x.task.Check(ans, x.want)
			}
			if err != nil {
				x.skip = fmt.Sprintf("%s: %s", who, oneLine(err.Error()))
				return
			}
			answers[who] = ans
			if r >= 0 && who == "rlm" {
				x.rlmT = append(x.rlmT, d)
			} else if r >= 0 {
				x.natT = append(x.natT, d)
			}
		}
		if err := x.task.Check(answers["native"], answers["rlm"]); err != nil {
			x.skip = "rlm and native disagree: " + oneLine(err.Error())
			return
		}
	}
}

// overhead is a cell's time beyond its contender's floor, never below zero.
func overhead(t, floor time.Duration) float64 { return max(0, ms(t)-ms(floor)) }
