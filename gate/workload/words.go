package workload

import "strings"

// words are common short English words. Each is a single token (with its
// leading space) in the byte-pair vocabularies of GPT-2/4, Llama 2/3, Qwen
// and Mistral, so a text of n of them is about n tokens. The count is
// approximate: a tokenizer may merge or split a pair, and chat templates add
// their own tokens. Chat and text prompts therefore have approximate
// lengths; completions on generated data send token ids and are exact.
// The list is part of the expansion: changing it changes workload hashes.
var words = strings.Fields(`
the of and to in is was for on that with as by at from his her it an are
were be this which or had not but have one all their they has been more
its new who also first can when two there other after some into time only
over most would years out made many then him about than may such these
year could so she three up used where well between both under city war
during state world people through later known while part called being
since we same because each until four what how life way before film if
those work any no like game name area team five house long them us series
early home high end six group still back age set state place around form
school good use water order old fact own among found number line side man
great small large king power party top light south north west east army
land book head church best day right case free live say line point air six
road left near field body town end rock sound early note less love next
music plan even road word son ten body fire hand rule base face cut open
red deal move full past plant keep dark term song round turn value eye
week star mind test art real law half best form hold story level late run
`)

// text returns n words drawn from words with s.
func text(n int, s *stream) string {
	var b strings.Builder
	b.Grow(n * 6)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[s.intRange(0, len(words)-1)])
	}
	return b.String()
}
