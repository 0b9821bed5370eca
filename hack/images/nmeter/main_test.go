package main

import (
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	at := time.Date(2026, 11, 22, 21, 5, 9, 123456789, time.UTC)
	for _, c := range []struct {
		prec int
		want string
	}{
		{0, "21:05:09"},
		{1, "21:05:09.1"},
		{3, "21:05:09.123"},
		{6, "21:05:09.123456"},
	} {
		if got := clock(at, c.prec); got != c.want {
			t.Errorf("clock(%d) = %q, want %q", c.prec, got, c.want)
		}
	}
	// Rounding carries into the seconds, as busybox's does.
	if got := clock(time.Date(2026, 1, 1, 0, 0, 59, 999600000, time.UTC), 3); got != "00:01:00.000" {
		t.Errorf("rounding: got %q", got)
	}
}

func TestParse(t *testing.T) {
	items, eol, err := parse("at %3t, 100%%")
	if err != nil || eol != '\n' || len(items) != 3 || items[0].text != "at " || items[1].prec != 3 || items[2].text != ", 100%" {
		t.Errorf("parse = %+v %q %v", items, eol, err)
	}
	if _, eol, _ := parse("%t%r"); eol != '\r' {
		t.Error("%r: want a carriage return")
	}
	for _, bad := range []string{"%c", "%[mf]", "%3"} {
		if _, _, err := parse(bad); err == nil {
			t.Errorf("parse(%q): want an error", bad)
		}
	}
}

func TestParseArgs(t *testing.T) {
	for _, c := range []struct {
		args   []string
		delay  int
		format string
	}{
		{[]string{"-d0", "%3t"}, 0, "%3t"},
		{[]string{"-d", "250", "%t"}, 250, "%t"},
		{[]string{"%t"}, 1000, "%t"},
		{[]string{"-d-1", "x"}, -1, "x"},
	} {
		d, f, err := parseArgs(c.args)
		if err != nil || d != c.delay || f != c.format {
			t.Errorf("parseArgs(%q) = %d %q %v", c.args, d, f, err)
		}
	}
	for _, bad := range [][]string{{}, {"-x", "%t"}, {"-d"}, {"-dx", "%t"}, {"%t", "%t"}} {
		if _, _, err := parseArgs(bad); err == nil {
			t.Errorf("parseArgs(%q): want an error", bad)
		}
	}
}
