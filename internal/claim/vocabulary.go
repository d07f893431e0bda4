package claim

import "strings"

// Canonical claim keys: the one name each everyday attribute of a person
// has, whatever words a memory or an LLM used for it ("new number",
// "mobile", "cell" are all phone), so that successive values of it collide
// and the newer retires the older. The profile groups its lines by these
// keys, in these categories.

// Category is a section of the profile and the canonical keys it holds.
type Category struct {
	Name string
	Keys []string
}

// Categories is the profile's vocabulary, in the order it is shown: the
// LLM prompt offers it, the consolidation and the store accept nothing
// else.
var Categories = []Category{
	{"identity", []string{"name", "birthday", "age", "pronouns", "language", "nationality"}},
	{"contact", []string{"phone", "email"}},
	{"home", []string{"address", "city", "country", "timezone", "rent"}},
	{"work", []string{"employer", "job_title", "salary", "manager", "colleague", "work_schedule"}},
	{"family", []string{"partner", "child", "parent", "sibling", "relation"}},
	{"pets", []string{"pet"}},
	{"health", []string{"allergy", "intolerance", "medication", "condition", "blood_type"}},
	{"diet", []string{"diet"}},
	{"vehicle", []string{"car", "commute"}},
	{"providers", Providers},
	{"preference", []string{"preference", "hobby", "rule"}},
	{"routine", []string{"routine"}},
}

// Providers are the keys of the everyday people and firms a household
// uses, one of each at a time: a new dentist replaces the old one.
var Providers = []string{"doctor", "dentist", "vet", "optician", "physio", "pharmacy", "plumber", "electrician",
	"mechanic", "cleaner", "window_cleaner", "gardener", "dog_walker", "childminder", "hairdresser", "accountant", "solicitor", "bank",
	"insurer", "energy_supplier", "broadband", "mobile_network", "gym"}

// ProviderWork is the work each provider is known by, where the user's
// words name the work and not the provider: "my eye tests are at
// Lenswright" says who my optician is (recall's topics), and "we switched
// opticians" retires it (capture).
var ProviderWork = map[string][]string{
	"dentist":     {"dr", "surgery", "clinic", "practice", "dental", "hygienist", "checkup", "teeth", "tooth", "filling", "fillings", "crown", "braces"},
	"optician":    {"dr", "clinic", "practice", "eye", "eyes", "sight", "glasses", "lenses"},
	"physio":      {"dr", "clinic", "practice", "back", "knee", "shoulder", "neck", "hip"},
	"vet":         {"jab", "jabs", "vaccination", "vaccinations", "booster", "neutered", "spayed", "worming", "flea", "fleas"},
	"electrician": {"rewired", "rewire", "rewiring", "wiring", "fuse", "fuses", "socket", "sockets", "electrics"},
	"plumber":     {"leak", "leaks", "leaking", "pipe", "pipes", "boiler", "sink", "tap", "taps", "drain", "drains", "toilet", "radiator", "radiators"},
	"hairdresser": {"hair", "haircut", "haircuts", "fringe", "highlights", "balayage", "perm", "salon"},
	"cleaner":     {"hoovering", "hoover", "vacuuming", "hoovers", "dusting", "mopping", "ironing", "bathrooms"},
	"accountant":  {"self-assessment", "tax", "vat", "bookkeeping", "payroll", "receipts", "invoices"},
}

// Sports and Pastimes are the everyday activities a person does by name:
// "Yoga is Monday at 6pm" opens with one, not with a person (capture), and
// a question of sport or hobbies is answered by a memory naming one
// (recall's topics).
var (
	Sports = strings.Fields(`hiit gym run runs running jog jogging parkrun marathon swim swimming cycling spin yoga
		pilates boxing kickboxing karate judo taekwondo jujitsu fencing climbing bouldering paddleboarding kayaking canoeing
		rowing sailing surfing orienteering hiking tennis badminton squash padel football netball hockey rugby cricket golf
		basketball volleyball crossfit zumba aerobics triathlon`)
	Pastimes = strings.Fields(`pottery knitting crochet sewing painting drawing choir dancing yoga pilates chess baking
		photography guitar piano climbing`)
)

// CategoryRank is c's place in Categories; len(Categories) for a name that
// is not a category.
func CategoryRank(c string) int {
	for i, cat := range Categories {
		if cat.Name == c {
			return i
		}
	}
	return len(Categories)
}

// IsCategory reports whether c is one of Categories.
func IsCategory(c string) bool { return CategoryRank(c) < len(Categories) }

// singleKeys are the keys that hold one value at a time: a newer value
// supersedes the older. The other canonical keys (allergies, children,
// pets, languages, hobbies) accumulate values, and a value goes only by an
// explicit change naming it ("sold the Golf", "we lost Pepper").
var singleKeys = func() map[string]bool {
	m := map[string]bool{
		"name": true, "birthday": true, "age": true, "phone": true, "email": true, "address": true,
		"city": true, "country": true, "timezone": true, "rent": true, "employer": true, "job_title": true, "salary": true,
		"manager": true, "partner": true, "car": true, "commute": true, "diet": true, "blood_type": true,
	}
	for _, k := range Providers {
		m[k] = true
	}
	return m
}()

// Single reports whether key, a canonical key, holds one value at a time.
func Single(key string) bool { return singleKeys[key] }

// Many reports whether attribute names a canonical key that holds many
// values at a time: a new value is added beside the others.
func Many(attribute string) bool {
	_, single := Key(attribute)
	return !single
}

// IsKey reports whether key is a canonical key.
func IsKey(key string) bool {
	_, ok := keySynonyms[key]
	return ok
}

// keySynonyms lists, per canonical key, the phrases that name it. The key
// itself (with "_" read as a space) always names it.
var keySynonyms = map[string][]string{
	"name":          {"full name", "first name", "legal name", "given name", "preferred name"},
	"birthday":      {"birth date", "birthdate", "date of birth", "dob", "bday", "b day", "born on", "birth day"},
	"age":           {"years old", "how old"},
	"pronouns":      {"pronoun", "preferred pronouns"},
	"language":      {"native language", "first language", "mother tongue", "languages spoken", "speaks"},
	"nationality":   {"citizenship", "citizen of"},
	"phone":         {"phone number", "number", "mobile", "mobile number", "mobile phone", "mobile phone number", "cell", "cell number", "cell phone", "cellphone", "cell phone number", "telephone", "telephone number", "tel", "phone no", "contact number", "whatsapp", "whatsapp number"},
	"email":         {"e mail", "email address", "e mail address", "mail address", "inbox"},
	"address":       {"home address", "postal address", "street address", "mailing address", "home", "place", "flat", "apartment", "house", "residence", "lives at", "living at"},
	"city":          {"town", "city of residence", "lives in", "living in", "based in", "location", "home city"},
	"country":       {"country of residence"},
	"timezone":      {"time zone", "tz", "local time zone"},
	"rent":          {"monthly rent", "rental", "rent amount", "rent price", "rent cost", "pays rent"},
	"employer":      {"company", "works at", "work at", "working at", "works for", "work for", "working for", "workplace", "place of work", "firm", "organisation", "organization", "work", "job at"},
	"job_title":     {"job", "title", "role", "position", "occupation", "profession", "job role", "job position", "career", "works as", "working as", "work as"},
	"salary":        {"pay", "wage", "wages", "income", "earnings", "annual salary", "base salary", "take home pay", "pay packet", "hourly rate", "hourly wage", "hourly pay", "monthly pay", "monthly salary"},
	"manager":       {"boss", "line manager", "supervisor", "reports to", "team lead"},
	"colleague":     {"coworker", "co worker", "teammate", "team mate", "workmate", "work colleague"},
	"work_schedule": {"working hours", "work hours", "office hours", "shift", "shift pattern", "working days", "work days", "work pattern"},
	"partner":       {"girlfriend", "boyfriend", "wife", "husband", "spouse", "fiance", "fiancé", "fiancee", "fiancée", "gf", "bf", "significant other", "other half", "married to", "dating"},
	"child":         {"children", "kid", "son", "daughter", "baby", "stepson", "stepdaughter"},
	"parent":        {"mother", "father", "mom", "mum", "dad", "mam", "mommy", "mummy", "daddy", "stepmother", "stepfather", "stepmom", "stepdad"},
	"sibling":       {"brother", "sister", "twin", "stepbrother", "stepsister", "half brother", "half sister"},
	"relation":      {"relationship", "relative", "relation to user", "relationship to user"},
	"pet":           {"dog", "cat", "puppy", "kitten", "hamster", "rabbit", "bunny", "parrot", "budgie", "guinea pig", "tortoise", "turtle", "horse"},
	"allergy":       {"allergic to", "allergen", "allergic"},
	"intolerance":   {"intolerant to", "intolerant", "food intolerance"},
	"medication":    {"medicine", "meds", "prescription", "drug", "pill", "takes medication"},
	"condition":     {"medical condition", "health condition", "chronic condition", "illness", "diagnosis", "disease", "diagnosed with"},
	"blood_type":    {"blood group"},
	"diet":          {"dietary preference", "dietary requirement", "eating habits"},
	"car":           {"vehicle", "automobile", "drives"},
	"commute":       {"commute to work", "journey to work", "way to work", "travel to work", "commutes", "commuting"},
	"preference":    {"like", "dislike", "likes", "dislikes", "loves", "hates"},
	"hobby":         {"pastime"},
	"rule":          {"standing rule", "instruction", "standing instruction"},
	// Providers: only phrases that name the provider whatever the
	// sentence ("surgery" alone may be an operation, "garage" a shed).
	"doctor":          {"gp", "g p", "family doctor", "general practitioner", "physician", "doc", "gp surgery", "gp practice", "doctor's surgery", "doctors surgery", "doctors", "doctor's", "medical practice", "medical centre", "medical center", "health centre"},
	"dentist":         {"dentists", "dentist's", "dental practice", "dental surgery", "dental clinic"},
	"vet":             {"vets", "vet's", "veterinarian", "veterinary surgeon", "veterinary practice", "vet practice", "veterinary clinic", "vet clinic"},
	"optician":        {"opticians", "optician's", "optometrist", "eye doctor"},
	"physio":          {"physiotherapist", "physical therapist", "physiotherapy", "physio clinic"},
	"pharmacy":        {"chemist", "chemist's", "pharmacist"},
	"plumber":         {"heating engineer"},
	"electrician":     {"sparky"},
	"mechanic":        {"car mechanic", "car garage", "motor mechanic"},
	"cleaner":         {"house cleaner", "cleaning lady"},
	"window_cleaner":  {"windows cleaner"},
	"gardener":        {"landscaper"},
	"dog_walker":      {"dogwalker"},
	"childminder":     {"child minder", "nanny"},
	"hairdresser":     {"hairdresser's", "hairdressers", "barber", "barbers", "barber's", "hair salon", "hairstylist"},
	"accountant":      {"bookkeeper", "tax adviser", "tax advisor"},
	"solicitor":       {"lawyer", "attorney"},
	"bank":            {"bank account", "building society", "main bank"},
	"insurer":         {"insurance company", "insurance provider", "insurance firm"},
	"energy_supplier": {"energy company", "energy provider", "electricity supplier", "electricity provider", "electricity company", "gas supplier", "gas provider", "gas company"},
	"broadband":       {"broadband provider", "broadband supplier", "internet provider", "internet service provider", "isp", "wifi provider", "wi fi provider", "internet supplier"},
	"mobile_network":  {"mobile network", "phone network", "mobile provider", "phone provider", "mobile operator", "network provider", "carrier", "phone carrier", "mobile carrier"},
	"gym":             {"gym membership", "leisure centre"},
	"routine":         {"habit", "weekly routine", "daily routine", "regular commitment", "recurring commitment"},
}

// keyPhrases maps each phrase (lower-case, words joined by single spaces,
// "_" and "-" read as spaces) onto its canonical key: keySynonyms turned
// round, built at init (a few hundred entries).
var keyPhrases = func() map[string]string {
	m := map[string]string{}
	for key, phrases := range keySynonyms {
		m[strings.ReplaceAll(key, "_", " ")] = key
		for _, p := range phrases {
			m[p] = key
		}
	}
	return m
}()

// stateWords say which value of an attribute is meant, not which
// attribute: "new number" and "old number" are both the phone.
var stateWords = map[string]bool{
	"new": true, "old": true, "current": true, "latest": true, "updated": true, "previous": true,
	"former": true, "present": true, "actual": true, "usual": true, "main": true, "primary": true,
	"own": true, "real": true, "correct": true, "changed": true,
}

// possessives and articles never belong to an attribute's name.
var possessives = map[string]bool{
	"my": true, "our": true, "your": true, "his": true, "her": true, "their": true,
	"the": true, "a": true, "an": true, "user": true, "user's": true,
}

// Key is the canonical key attribute names and whether that key holds a
// single value. An attribute that is not one of the canonical keys comes
// back normalised (NormalAttribute, possessives dropped) and single, which
// is how facts outside the vocabulary have always been keyed.
func Key(attribute string) (key string, single bool) {
	words := strings.Fields(strings.ToLower(strings.Trim(attribute, " \t\n:.,;\"'")))
	for len(words) > 1 && possessives[words[0]] {
		words = words[1:]
	}
	if k, ok := lookupKey(words); ok {
		return k, singleKeys[k]
	}
	return NormalAttribute(strings.Join(words, " ")), true
}

// NormalAttribute is an attribute in the form facts are keyed by:
// lower-case, single spaces, the American "favorite color" spelt as the
// British.
func NormalAttribute(s string) string {
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	s = strings.Replace(s, "favorite ", "favourite ", 1)
	return strings.Replace(s, "favourite color", "favourite colour", 1)
}

// lookupKey finds the canonical key of words: as they are, then without
// the state words before the attribute. A possessor stays: "sister's
// birthday" is not the speaker's birthday.
func lookupKey(words []string) (string, bool) {
	for len(words) > 0 {
		if k, ok := keyOfPhrase(strings.Join(words, " ")); ok {
			return k, true
		}
		if !stateWords[words[0]] {
			return "", false
		}
		words = words[1:]
	}
	return "", false
}

// keyOfPhrase is the key phrase p names, trying it also with its last word
// in the singular ("allergies", "phone numbers").
func keyOfPhrase(p string) (string, bool) {
	p = strings.NewReplacer("_", " ", "-", " ").Replace(p)
	p = strings.Join(strings.Fields(p), " ")
	if k, ok := keyPhrases[p]; ok {
		return k, true
	}
	for _, s := range singulars(p) {
		if k, ok := keyPhrases[s]; ok {
			return k, true
		}
	}
	return "", false
}

// singulars are the forms p might have with its last word in the singular.
func singulars(p string) []string {
	var out []string
	if s, ok := strings.CutSuffix(p, "ies"); ok {
		out = append(out, s+"y")
	}
	if s, ok := strings.CutSuffix(p, "es"); ok {
		out = append(out, s)
	}
	if s, ok := strings.CutSuffix(p, "s"); ok {
		out = append(out, s)
	}
	return out
}
