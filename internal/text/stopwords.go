package text

import (
	"slices"
	"strings"
)

// IsStopword reports whether w, a lowercase word, is too common to search
// for. Recall queries are questions ("what did Alice tell me about the
// move?"), so besides the usual articles, pronouns, auxiliaries and
// prepositions the list holds question words and the verbs people ask with.
// Contractions count both whole ("don't", "don’t") and in the pieces Words
// splits them into ("don", "t").
func IsStopword(w string) bool {
	if strings.ContainsRune(w, '’') {
		w = strings.ReplaceAll(w, "’", "'")
	}
	_, ok := stopwords[w]
	return ok
}

// Stopwords returns the stopword list, for callers that fold it into tables
// of their own. The order is not meaningful.
func Stopwords() []string { return slices.Clone(stopwordList) }

var stopwords = setOf(stopwordList...)

var stopwordList = []string{
	// articles, determiners, quantifiers
	"a", "an", "the", "this", "that", "these", "those", "some", "any", "all",
	"each", "every", "both", "either", "neither", "no", "none", "few", "more",
	"most", "much", "many", "several", "such", "other", "others", "another",
	"same", "own", "enough", "one",

	// pronouns
	"i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves",
	"you", "your", "yours", "yourself", "yourselves", "he", "him", "his",
	"himself", "she", "her", "hers", "herself", "it", "its", "itself", "they",
	"them", "their", "theirs", "themselves", "someone", "somebody", "something",
	"anyone", "anybody", "anything", "everyone", "everybody", "everything",
	"nothing", "thing", "things",

	// question words
	"what", "whatever", "when", "whenever", "where", "wherever", "which", "who",
	"whoever", "whom", "whose", "why", "how",

	// auxiliaries and modals
	"am", "is", "are", "was", "were", "be", "been", "being", "have", "has",
	"had", "having", "do", "does", "did", "doing", "done", "can", "cannot",
	"could", "may", "might", "must", "shall", "should", "will", "would",

	// the verbs questions are asked with
	"tell", "told", "say", "said", "says", "know", "knew", "remember", "recall",
	"get", "gets", "got", "getting", "let", "please",

	// prepositions and conjunctions
	"about", "above", "across", "after", "against", "along", "among", "around",
	"as", "at", "before", "behind", "below", "beside", "between", "beyond",
	"by", "down", "during", "except", "for", "from", "in", "inside", "into",
	"near", "of", "off", "on", "onto", "out", "outside", "over", "per",
	"since", "through", "throughout", "to", "toward", "towards", "under",
	"until", "up", "upon", "via", "with", "within", "without", "and", "but",
	"or", "nor", "so", "if", "than", "then", "because", "while", "although",
	"though", "unless", "whether", "whereas",

	// adverbs that carry no topic
	"again", "ago", "almost", "already", "also", "always", "anyway", "even",
	"ever", "further", "here", "however", "just", "least", "less", "not",
	"now", "often", "once", "only", "quite", "rather", "really", "still",
	"there", "thus", "too", "very", "yet", "else", "etc",

	// what contractions leave when apostrophes split words
	"s", "t", "d", "ll", "m", "o", "re", "ve", "y", "ain", "aren", "couldn",
	"didn", "doesn", "don", "hadn", "hasn", "haven", "isn", "ma", "mightn",
	"mustn", "needn", "shan", "shouldn", "wasn", "weren", "won", "wouldn",

	// contractions whole, for callers that keep apostrophes
	"i'm", "i've", "i'll", "i'd", "you're", "you've", "you'll", "you'd",
	"he's", "he'll", "he'd", "she's", "she'll", "she'd", "it's", "it'll",
	"we're", "we've", "we'll", "we'd", "they're", "they've", "they'll",
	"they'd", "that's", "there's", "what's", "who's", "let's", "don't",
	"doesn't", "didn't", "isn't", "aren't", "wasn't", "weren't", "won't",
	"wouldn't", "can't", "couldn't", "shouldn't", "haven't", "hasn't",
	"hadn't", "mustn't",
}

func setOf(words ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}
