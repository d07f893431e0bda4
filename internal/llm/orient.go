package llm

import "image"

// orient returns img turned upright for EXIF orientation o. Each of the
// eight is at most three steps, in this order: a transpose (5 to 8), a
// left-right mirror (2, 3, 6, 7) and a top-bottom mirror (3, 4, 7, 8); so 3
// is a half turn, 6 a quarter turn clockwise and 8 one anticlockwise.
func orient(img *image.RGBA, o int) *image.RGBA {
	if o <= 1 || o > 8 {
		return img
	}
	transpose := o >= 5
	mirrorX := o == 2 || o == 3 || o == 6 || o == 7
	mirrorY := o == 3 || o == 4 || o == 7 || o == 8
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	dw, dh := w, h
	if transpose {
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := range h {
		for x := range w {
			dx, dy := x, y
			if transpose {
				dx, dy = y, x
			}
			if mirrorX {
				dx = dw - 1 - dx
			}
			if mirrorY {
				dy = dh - 1 - dy
			}
			si := img.PixOffset(b.Min.X+x, b.Min.Y+y)
			di := dst.PixOffset(dx, dy)
			copy(dst.Pix[di:di+4], img.Pix[si:si+4])
		}
	}
	return dst
}
