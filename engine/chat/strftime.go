package chat

import (
	"strconv"
	"strings"
	"time"
)

// strftime formats t with the C/Python directives chat templates use
// (Llama 3.x prints "%d %b %Y"); unknown directives are kept verbatim.
func strftime(t time.Time, format string) string {
	var sb strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			sb.WriteByte(c)
			continue
		}
		i++
		sb.WriteString(directive(t, format[i]))
	}
	return sb.String()
}

func directive(t time.Time, d byte) string {
	switch d {
	case 'd':
		return t.Format("02")
	case 'e':
		return t.Format("_2")
	case 'm':
		return t.Format("01")
	case 'y':
		return t.Format("06")
	case 'Y':
		return strconv.Itoa(t.Year())
	case 'b', 'h':
		return t.Format("Jan")
	case 'B':
		return t.Format("January")
	case 'a':
		return t.Format("Mon")
	case 'A':
		return t.Format("Monday")
	case 'H':
		return t.Format("15")
	case 'I':
		return t.Format("03")
	case 'M':
		return t.Format("04")
	case 'S':
		return t.Format("05")
	case 'p':
		return t.Format("PM")
	case 'j':
		return strconv.Itoa(t.YearDay())
	case '%':
		return "%"
	}
	return "%" + string(d)
}
