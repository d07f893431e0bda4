package capture

import (
	"slices"
	"testing"
)

// Names are Extract's name entities, and only those.
func TestNames(t *testing.T) {
	for _, c := range []struct {
		s    string
		want []string
	}{
		{"Tom thinks the Harland offer is fair: 850k upfront.", []string{"Tom", "Harland"}},
		{"Aunt Funmi is taking the train to Edinburgh on 12 July.", []string{"Aunt Funmi", "Edinburgh"}},
		{"Parents' evening: Leo's teacher says he reads two levels ahead.", []string{"Leo"}},
		{"He wants the earn-out tied to revenue, not profit.", nil},
		{"Went to the gym on Friday at 6pm, paid $12.", nil},
		// After an opener done to someone, the capitalised word is a name.
		{"Interviewed Rosa for the data role, she wants 72k.", []string{"Rosa"}},
		{"Phoned Okonkwo about the invoice.", []string{"Okonkwo"}},
		{"Discussed budget cuts with Ines.", []string{"Ines"}},
		// A lone opener said which person it is, then a verb: a name.
		{"Pete from payroll needs the overtime sheets.", []string{"Pete"}},
		{"Wanjiru at the pharmacy says it's ready.", []string{"Wanjiru"}},
		{"Parking at the station costs more now.", nil},
		{"Rain on the roof kept us awake.", nil},
		// A lone opener before an irregular past is someone who did it.
		{"Zaid swam in Lake Maggiore last summer.", []string{"Zaid", "Lake Maggiore"}},
		{"Oksana drove us to the airport.", []string{"Oksana"}},
		{"Swam forty lengths before work.", nil},
		{"Put in the courgette seedlings by the compost heap.", nil},
		{"Took Mum to the pub for her birthday.", []string{"Mum"}},
		// An activity opening a sentence is no one; a name beside it is.
		{"Yoga is Monday at 6pm.", nil},
		{"Pilates with Jo is on Fridays.", []string{"Jo"}},
		{"Netball starts again in September.", nil},
		{"Grace is picking up the kids at six.", []string{"Grace"}},
	} {
		got := Names(c.s)
		if !slices.Equal(got, c.want) {
			t.Errorf("Names(%q) = %q; want %q", c.s, got, c.want)
		}
		var ext []string
		for _, e := range Extract(c.s).Entities {
			if e.Type == TypeName {
				ext = append(ext, e.Text)
			}
		}
		if !slices.Equal(got, ext) {
			t.Errorf("Names(%q) = %q; Extract's names are %q", c.s, got, ext)
		}
	}
}
