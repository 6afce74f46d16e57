package engine

import (
	"fmt"
	"sort"
	"strings"
)

// CounterLines gives each model's non-zero DUT counters on one line,
// "model: name value ...", models and names in order, summed over ports
// and QPs ("port2.drop_tail[3]" counts into "drop_tail", "qp5.tx_packets"
// into "tx_packets"), with "!" after any sum that holds a counter unlike
// the golden model's; such a sum shows even when it is zero. A run's
// thousands of per-port and per-QP counters read at a glance this way;
// summary.json keeps every one of them.
func (s *Summary) CounterLines() []string {
	models := make([]string, 0, len(s.Counters))
	for m := range s.Counters {
		models = append(models, m)
	}
	sort.Strings(models)
	lines := make([]string, 0, len(models))
	for _, m := range models {
		total := map[string]uint64{}
		differ := map[string]bool{}
		for name, p := range s.Counters[m] {
			key := name
			if i := strings.IndexByte(name, '.'); i > 0 && (strings.HasPrefix(name, "port") || strings.HasPrefix(name, "qp")) {
				key = name[i+1:]
			}
			if i := strings.IndexByte(key, '['); i > 0 {
				key = key[:i]
			}
			total[key] += p.DUT
			differ[key] = differ[key] || p.DUT != p.Golden
		}
		names := make([]string, 0, len(total))
		for k, v := range total {
			if v != 0 || differ[k] {
				names = append(names, k)
			}
		}
		sort.Strings(names)
		var b strings.Builder
		b.WriteString(m + ":")
		for _, k := range names {
			mark := ""
			if differ[k] {
				mark = "!"
			}
			fmt.Fprintf(&b, " %s %d%s", k, total[k], mark)
		}
		lines = append(lines, b.String())
	}
	return lines
}
