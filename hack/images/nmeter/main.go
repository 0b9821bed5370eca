// Command nmeter is the part of busybox's nmeter applet that upstream's node
// e2e specs use, for the test images of hack/e2e-node/build-images.sh:
// Debian's busybox is built without nmeter, and the specs log their
// timestamps with
//
//	date -u +%FT$(nmeter -d0 '%3t' | head -n1)Z
//
// Usage, as busybox's: nmeter [-d MSEC] FORMAT. It prints FORMAT once per
// MSEC milliseconds (default 1000; 0 or less: no pause), forever, each line
// ended by a newline. FORMAT is text with these specifiers:
//
//	%Nt  the local time, HH:MM:SS, with N (0 to 6) decimals of the second,
//	     rounded to nearest as busybox does
//	%r   end lines with a carriage return instead of a newline
//	%%   a percent sign
//
// Busybox's other specifiers (CPU, memory, network, IRQ, ... meters) are not
// implemented: nmeter refuses them rather than print something else.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

type item struct {
	text string // literal text, or
	prec int    // for a time: decimals; -1 for text
}

func parse(format string) (items []item, eol byte, err error) {
	eol = '\n'
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			items = append(items, item{text: text.String(), prec: -1})
			text.Reset()
		}
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			text.WriteByte(c)
			continue
		}
		if i+1 < len(format) && format[i+1] == '%' {
			text.WriteByte('%')
			i++
			continue
		}
		j := i + 1
		n := 0
		for j < len(format) && format[j] >= '0' && format[j] <= '9' {
			n = n*10 + int(format[j]-'0')
			j++
		}
		if j >= len(format) {
			return nil, 0, fmt.Errorf("format ends in the middle of %q", format[i:])
		}
		switch format[j] {
		case 't':
			flush()
			items = append(items, item{prec: min(n, 6)})
		case 'r':
			eol = '\r'
		default:
			return nil, 0, fmt.Errorf("%%%c: not implemented by this nmeter (only %%t, %%r and %%%%)", format[j])
		}
		i = j
	}
	flush()
	return items, eol, nil
}

// clock formats t as busybox's collect_time does.
func clock(t time.Time, prec int) string {
	scale := 1
	for i := prec; i < 6; i++ {
		scale *= 10
	}
	us := t.Nanosecond()/1000 + scale/2
	if us >= 1000000 {
		t = t.Add(time.Second)
		us -= 1000000
	}
	s := t.Format("15:04:05")
	if prec > 0 {
		s += fmt.Sprintf(".%0*d", prec, us/scale)
	}
	return s
}

// parseArgs reads getopt-style arguments as busybox does: -d MSEC or
// -dMSEC, then the format.
func parseArgs(args []string) (delay int, format string, err error) {
	delay = 1000
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		a := args[0]
		args = args[1:]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-d") {
			return 0, "", fmt.Errorf("unknown option %s", a)
		}
		v := a[2:]
		if v == "" {
			if len(args) == 0 {
				return 0, "", fmt.Errorf("-d needs a value")
			}
			v, args = args[0], args[1:]
		}
		if delay, err = strconv.Atoi(v); err != nil {
			return 0, "", fmt.Errorf("-d %s: not a number", v)
		}
	}
	if len(args) != 1 {
		return 0, "", fmt.Errorf("want one FORMAT")
	}
	return delay, args[0], nil
}

func main() {
	delay, format, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "nmeter:", err)
		fmt.Fprintln(os.Stderr, "usage: nmeter [-d MSEC] FORMAT (supported: %Nt, %r, %%)")
		os.Exit(1)
	}
	items, eol, err := parse(format)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nmeter:", err)
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	period := time.Duration(delay) * time.Millisecond
	if period > 0 {
		// Like busybox: the first line comes at the next multiple of the period.
		time.Sleep(period - time.Duration(time.Now().UnixNano()%int64(period)))
	}
	for {
		now := time.Now()
		for _, it := range items {
			if it.prec < 0 {
				out.WriteString(it.text)
			} else {
				out.WriteString(clock(now, it.prec))
			}
		}
		out.WriteByte(eol)
		if err := out.Flush(); err != nil {
			os.Exit(1) // the reader is gone (head -n1)
		}
		if period > 0 {
			// Like busybox: wake at the next multiple of the period.
			time.Sleep(period - time.Duration(time.Now().UnixNano()%int64(period)))
		}
	}
}
