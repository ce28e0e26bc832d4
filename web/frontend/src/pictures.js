// A failing public case's picture, by the kind the judge gave it (judge/pictures/case_pictures.py). An
// unknown kind, or data a picture cannot draw, shows nothing rather than breaking the card.
import { barPicture } from "./bar_picture.js";
import { memoryPicture } from "./memory_picture.js";
import { poolPicture } from "./pool_picture.js";
import { rooflinePicture } from "./roofline_picture.js";
import { timelinePicture } from "./timeline_picture.js";

const PICTURES = { pool: poolPicture, roofline: rooflinePicture, memory: memoryPicture, bars: barPicture, timeline: timelinePicture };

export function casePicture(picture) {
  const draw = picture && PICTURES[picture.kind];
  if (!draw) return null;
  try {
    return draw(picture);
  } catch (error) {
    console.warn("case picture not drawn", error);
    return null;
  }
}
