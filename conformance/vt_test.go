package conformance

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// vt is a small terminal emulator: enough of xterm to turn what the agent
// TUIs (Ink, ratatui) write into the lines a person would see, plus the
// lines that scrolled off the top. Colours and modes are ignored.
type vt struct {
	cols, rows int
	grid       [][]rune
	x, y       int
	top, bot   int // scroll region, inclusive
	savedX     int
	savedY     int
	history    []string // lines scrolled off the top of the main screen
	alt        bool
	mainGrid   [][]rune // the main screen while the alternate one shows
	wrapNext   bool

	state  int // 0 ground, 1 ESC, 2 CSI, 3 OSC/DCS string, 4 ESC in string, 5 charset designator
	params []byte
	utf    []byte
}

func newVT(cols, rows int) *vt {
	v := &vt{cols: cols, rows: rows}
	v.grid = v.blank()
	v.top, v.bot = 0, rows-1
	return v
}

func (v *vt) blank() [][]rune {
	g := make([][]rune, v.rows)
	for i := range g {
		g[i] = v.blankLine()
	}
	return g
}

func (v *vt) blankLine() []rune {
	l := make([]rune, v.cols)
	for i := range l {
		l[i] = ' '
	}
	return l
}

// Write feeds output bytes.
func (v *vt) Write(p []byte) {
	for _, b := range p {
		v.byte(b)
	}
}

func (v *vt) byte(b byte) {
	switch v.state {
	case 1:
		v.esc(b)
		return
	case 2:
		if b >= 0x40 && b <= 0x7e {
			v.csi(b)
			v.state = 0
			return
		}
		v.params = append(v.params, b)
		return
	case 3:
		switch b {
		case 0x07:
			v.state = 0
		case 0x1b:
			v.state = 4
		}
		return
	case 4:
		if b == '\\' {
			v.state = 0
		} else {
			v.state = 3
		}
		return
	case 5:
		v.state = 0
		return
	}
	if len(v.utf) > 0 || b >= 0x80 {
		v.utf = append(v.utf, b)
		if utf8.FullRune(v.utf) {
			r, _ := utf8.DecodeRune(v.utf)
			v.utf = v.utf[:0]
			v.put(r)
		} else if len(v.utf) > 4 {
			v.utf = v.utf[:0]
		}
		return
	}
	switch b {
	case 0x1b:
		v.state, v.params = 1, v.params[:0]
	case '\r':
		v.x, v.wrapNext = 0, false
	case '\n', 0x0b, 0x0c:
		v.lf()
	case '\b':
		if v.x > 0 {
			v.x--
		}
		v.wrapNext = false
	case '\t':
		v.x = min((v.x/8+1)*8, v.cols-1)
	default:
		if b >= 0x20 && b < 0x7f {
			v.put(rune(b))
		}
	}
}

func (v *vt) esc(b byte) {
	v.state = 0
	switch b {
	case '[':
		v.state, v.params = 2, v.params[:0]
	case ']', 'P', '_', '^', 'X':
		v.state = 3
	case '(', ')', '*', '+', '#', '%':
		v.state = 5
	case '7':
		v.savedX, v.savedY = v.x, v.y
	case '8':
		v.x, v.y = v.savedX, v.savedY
	case 'D':
		v.lf()
	case 'E':
		v.x = 0
		v.lf()
	case 'M':
		if v.y == v.top {
			v.scrollDown(1)
		} else if v.y > 0 {
			v.y--
		}
	case 'c':
		v.grid = v.blank()
		v.x, v.y, v.top, v.bot = 0, 0, 0, v.rows-1
	}
}

func width(r rune) int {
	switch {
	case unicode.Is(unicode.Mn, r), r == 0x200d, r >= 0xfe00 && r <= 0xfe0f:
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf, r >= 0xac00 && r <= 0xd7a3,
		r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f, r >= 0xff00 && r <= 0xff60,
		r >= 0xffe0 && r <= 0xffe6, r >= 0x1f300 && r <= 0x1f64f, r >= 0x1f900 && r <= 0x1f9ff,
		r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}

func (v *vt) put(r rune) {
	w := width(r)
	if w == 0 {
		return
	}
	if v.wrapNext {
		v.x = 0
		v.lf()
		v.wrapNext = false
	}
	if v.x+w > v.cols {
		v.x = 0
		v.lf()
	}
	v.grid[v.y][v.x] = r
	if w == 2 && v.x+1 < v.cols {
		v.grid[v.y][v.x+1] = 0 // continuation
	}
	v.x += w
	if v.x >= v.cols {
		v.x = v.cols - 1
		v.wrapNext = true
	}
}

func (v *vt) lf() {
	if v.y == v.bot {
		v.scrollUp(1)
	} else if v.y < v.rows-1 {
		v.y++
	}
}

func (v *vt) scrollUp(n int) {
	for i := 0; i < n; i++ {
		if v.top == 0 && !v.alt {
			v.history = append(v.history, lineText(v.grid[0]))
		}
		copy(v.grid[v.top:v.bot], v.grid[v.top+1:v.bot+1])
		v.grid[v.bot] = v.blankLine()
	}
}

func (v *vt) scrollDown(n int) {
	for i := 0; i < n; i++ {
		copy(v.grid[v.top+1:v.bot+1], v.grid[v.top:v.bot])
		v.grid[v.top] = v.blankLine()
	}
}

func (v *vt) nums(def int) []int {
	s := strings.TrimLeft(string(v.params), "?>=<!")
	if s == "" {
		return []int{def}
	}
	var out []int
	for _, f := range strings.Split(s, ";") {
		f, _, _ = strings.Cut(f, ":")
		n, err := strconv.Atoi(f)
		if err != nil || n == 0 {
			n = def
		}
		out = append(out, n)
	}
	return out
}

func clamp(n, lo, hi int) int { return max(lo, min(n, hi)) }

func (v *vt) csi(final byte) {
	private := len(v.params) > 0 && (v.params[0] == '?' || v.params[0] == '>' || v.params[0] == '=' || v.params[0] == '<')
	p := v.nums(1)
	n := p[0]
	v.wrapNext = false
	switch final {
	case 'A':
		v.y = clamp(v.y-n, 0, v.rows-1)
	case 'B', 'e':
		v.y = clamp(v.y+n, 0, v.rows-1)
	case 'C', 'a':
		v.x = clamp(v.x+n, 0, v.cols-1)
	case 'D':
		v.x = clamp(v.x-n, 0, v.cols-1)
	case 'E':
		v.x, v.y = 0, clamp(v.y+n, 0, v.rows-1)
	case 'F':
		v.x, v.y = 0, clamp(v.y-n, 0, v.rows-1)
	case 'G', '`':
		v.x = clamp(n-1, 0, v.cols-1)
	case 'd':
		v.y = clamp(n-1, 0, v.rows-1)
	case 'H', 'f':
		col := 1
		if len(p) > 1 {
			col = p[1]
		}
		v.y, v.x = clamp(n-1, 0, v.rows-1), clamp(col-1, 0, v.cols-1)
	case 'J':
		mode := v.nums(0)[0]
		switch mode {
		case 0:
			v.eraseLine(v.y, v.x, v.cols)
			for y := v.y + 1; y < v.rows; y++ {
				v.grid[y] = v.blankLine()
			}
		case 1:
			for y := 0; y < v.y; y++ {
				v.grid[y] = v.blankLine()
			}
			v.eraseLine(v.y, 0, v.x+1)
		case 2, 3:
			for y := range v.grid {
				v.grid[y] = v.blankLine()
			}
		}
	case 'K':
		switch v.nums(0)[0] {
		case 0:
			v.eraseLine(v.y, v.x, v.cols)
		case 1:
			v.eraseLine(v.y, 0, v.x+1)
		case 2:
			v.grid[v.y] = v.blankLine()
		}
	case 'X':
		v.eraseLine(v.y, v.x, min(v.x+n, v.cols))
	case 'P':
		l := v.grid[v.y]
		n = min(n, v.cols-v.x)
		copy(l[v.x:], l[v.x+n:])
		for i := v.cols - n; i < v.cols; i++ {
			l[i] = ' '
		}
	case '@':
		l := v.grid[v.y]
		n = min(n, v.cols-v.x)
		copy(l[v.x+n:], l[v.x:v.cols-n])
		for i := v.x; i < v.x+n; i++ {
			l[i] = ' '
		}
	case 'L', 'M':
		if v.y < v.top || v.y > v.bot {
			return
		}
		t := v.top
		v.top = v.y
		if final == 'L' {
			v.scrollDown(n)
		} else {
			v.scrollUpNoHistory(n)
		}
		v.top = t
	case 'S':
		v.scrollUp(n)
	case 'T':
		v.scrollDown(n)
	case 'r':
		if private {
			return
		}
		top, bot := 1, v.rows
		if len(v.params) > 0 {
			ps := v.nums(0)
			if ps[0] > 0 {
				top = ps[0]
			}
			if len(ps) > 1 && ps[1] > 0 {
				bot = ps[1]
			}
		}
		if top < bot && bot <= v.rows {
			v.top, v.bot = top-1, bot-1
		}
		v.x, v.y = 0, 0
	case 's':
		if !private {
			v.savedX, v.savedY = v.x, v.y
		}
	case 'u':
		if !private {
			v.x, v.y = v.savedX, v.savedY
		}
	case 'h', 'l':
		if !private {
			return
		}
		for _, m := range v.nums(0) {
			if m == 1049 || m == 47 || m == 1047 {
				v.altScreen(final == 'h')
			}
		}
	}
}

func (v *vt) scrollUpNoHistory(n int) {
	for i := 0; i < n; i++ {
		copy(v.grid[v.top:v.bot], v.grid[v.top+1:v.bot+1])
		v.grid[v.bot] = v.blankLine()
	}
}

func (v *vt) altScreen(on bool) {
	if on == v.alt {
		return
	}
	if on {
		v.mainGrid = v.grid
		v.grid = v.blank()
	} else {
		v.grid = v.mainGrid
		v.mainGrid = nil
	}
	v.alt = on
}

func (v *vt) eraseLine(y, from, to int) {
	for x := from; x < to && x < v.cols; x++ {
		v.grid[y][x] = ' '
	}
}

func lineText(l []rune) string {
	var b strings.Builder
	for _, r := range l {
		if r != 0 {
			b.WriteRune(r)
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// Screen is what the terminal shows now, one string per row, trailing
// blank rows dropped.
func (v *vt) Screen() string {
	var lines []string
	for _, l := range v.grid {
		lines = append(lines, lineText(l))
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// All is the history that scrolled off followed by the screen.
func (v *vt) All() string {
	h := strings.Join(v.history, "\n")
	if h == "" {
		return v.Screen()
	}
	return h + "\n" + v.Screen()
}
