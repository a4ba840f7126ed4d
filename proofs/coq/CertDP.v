(** certdp's Coq library: the Gaussian profile δ_μ and the monotone cell argument.
    Liu et al. 2022 Thm 3.2 (δ_μ), Thm 4.6 / Cor 4.1 (cells, head GDP). *)
From Coq Require Import Reals Lra List.
From Coquelicot Require Import Coquelicot.
From Interval Require Import Tactic.
Open Scope R_scope.

Definition phi (x : R) : R := exp (- x * x / 2) / sqrt (2 * PI).
Definition Phi (x : R) : R := / 2 + RInt phi 0 x.
Definition delta_mu (mu eps : R) : R :=
  Phi (- eps / mu + mu / 2) - exp eps * Phi (- eps / mu - mu / 2).

(** The one fact taken from outside Coquelicot: the Gaussian integral
    ∫_{-∞}^0 φ = 1/2 (so that [Phi] is the standard normal CDF). *)
Axiom gaussian_integral : is_lim (fun t => RInt phi (- t) 0) p_infty (/ 2).

Lemma phi_pos : forall x, 0 < phi x.
Proof.
  intro x. unfold phi. apply Rdiv_lt_0_compat. apply exp_pos.
  apply sqrt_lt_R0. generalize PI_RGT_0. lra.
Qed.

Lemma phi_derive : forall x, is_derive phi x (- x * phi x).
Proof.
  intro x. unfold phi. auto_derive. auto.
  unfold Rdiv. field.
  apply Rgt_not_eq, sqrt_lt_R0. generalize PI_RGT_0. lra.
Qed.

Lemma phi_continuous : forall x, continuous phi x.
Proof.
  intro x. apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)).
  eexists. apply phi_derive.
Qed.

Lemma phi_ex_RInt : forall a b, ex_RInt phi a b.
Proof. intros a b. apply (ex_RInt_continuous (V := R_CompleteNormedModule)). intros z _. apply phi_continuous. Qed.

Lemma Phi_derive : forall x, is_derive Phi x (phi x).
Proof.
  intro x. unfold Phi. auto_derive.
  - split; [apply phi_ex_RInt|split; [|exact I]].
    apply filter_forall. intro y. apply continuity_pt_filterlim. apply phi_continuous.
  - apply Rmult_1_l.
Qed.

(** * Closed-form privacy profiles (the checker's table, certdp/verifier/mechs.py) *)

(** laplace(scale = b, sensitivity = s): max(1 - e^((eps - s/b)/2), 0)
    (Liu et al. 2022 §3; Balle et al. 2020 Thm 3). *)
Definition laplace_delta (b s eps : R) : R := Rmax (1 - exp ((eps - s / b) / 2)) 0.
(** randomized_response(p), q = max(p, 1 - p): (q - (1 - q) e^eps)^+ (Zhu, Dong & Wang 2022 Table 2). *)
Definition rr_delta (q eps : R) : R := Rmax (q - (1 - q) * exp eps) 0.
(** approx_dp(eps0, delta0) (pure_dp: delta0 = 0): the least profile of the guarantee,
    delta0 + (1 - delta0)(e^eps0 - e^eps)^+ / (1 + e^eps0) (Liu et al. 2022 Thm 3.1). *)
Definition adp_delta (e0 d0 eps : R) : R := d0 + (1 - d0) * Rmax (exp e0 - exp eps) 0 / (1 + exp e0).
(** subsample(M, rate = g): g delta_M(log(1 + (e^eps - 1)/g)) (Balle, Barthe & Gaboardi 2018). *)
Definition subsample (g : R) (d : R -> R) (eps : R) : R := g * d (ln (1 + (exp eps - 1) / g)).

(** * Pieces of the numerical closing tactic (the exported scripts define
    [certdp_num] with their precision: integrals of Φ, then the Interval library). *)
Ltac certdp_unfold := unfold delta_mu, Phi, phi, laplace_delta, rr_delta, adp_delta, subsample.
Lemma Rdiv_0_num : forall r, 0 / r = 0.
Proof. intro r. unfold Rdiv. apply Rmult_0_l. Qed.
(** [- 0 / μ] in an integral bound trips the Interval library's reification: fold it first. *)
Ltac certdp_zero := rewrite ?Ropp_0, ?Rdiv_0_num, ?Rplus_0_l, ?Rminus_0_l, ?exp_0, ?Rmult_1_l.
Ltac certdp_rmax :=
  repeat match goal with |- context [Rmax ?a ?b] => unfold Rmax at 1; destruct (Rle_dec a b) end.

Lemma Rmax_exp_pos : forall a e, e <= a -> Rmax (exp a - exp e) 0 = exp a - exp e.
Proof.
  intros a e H. apply Rmax_left.
  destruct (Req_dec e a) as [->|Hne]; [lra|].
  pose proof (exp_increasing e a ltac:(lra)). lra.
Qed.

Lemma Rmax_exp_neg : forall a e, a <= e -> Rmax (exp a - exp e) 0 = 0.
Proof.
  intros a e H. apply Rmax_right.
  destruct (Req_dec e a) as [->|Hne]; [lra|].
  pose proof (exp_increasing a e ltac:(lra)). lra.
Qed.

Ltac certdp_exp_rmax :=
  repeat match goal with
  | |- context [Rmax (exp ?a - exp ?e) 0] =>
      first [ rewrite (Rmax_exp_pos a e) by lra | rewrite (Rmax_exp_neg a e) by lra ]
  end.

(** * Monotonicity *)
Definition nonincr (f : R -> R) : Prop := forall x y, 0 <= x -> x <= y -> f y <= f x.

Lemma exp_le : forall x y, x <= y -> exp x <= exp y.
Proof.
  intros x y H. destruct (Req_dec x y) as [->|]; [lra|].
  left. apply exp_increasing. lra.
Qed.

Lemma Rmax_le_compat : forall a b c, a <= b -> Rmax a c <= Rmax b c.
Proof. intros a b c H. unfold Rmax. destruct (Rle_dec a c), (Rle_dec b c); lra. Qed.

Lemma laplace_nonincr : forall b s, 0 < b -> nonincr (laplace_delta b s).
Proof.
  intros b s Hb x y _ H. unfold laplace_delta. apply Rmax_le_compat.
  assert (exp ((x - s / b) / 2) <= exp ((y - s / b) / 2)) by (apply exp_le; lra). lra.
Qed.

Lemma rr_nonincr : forall q, q <= 1 -> nonincr (rr_delta q).
Proof.
  intros q Hq x y _ H. unfold rr_delta. apply Rmax_le_compat.
  pose proof (exp_le x y H). nra.
Qed.

Lemma adp_nonincr : forall e0 d0, d0 <= 1 -> nonincr (adp_delta e0 d0).
Proof.
  intros e0 d0 Hd x y _ H. unfold adp_delta.
  pose proof (exp_le x y H). pose proof (exp_pos e0).
  assert (Rmax (exp e0 - exp y) 0 <= Rmax (exp e0 - exp x) 0) by (apply Rmax_le_compat; lra).
  assert (0 <= Rmax (exp e0 - exp y) 0) by apply Rmax_r.
  unfold Rdiv. apply Rplus_le_compat_l. apply Rmult_le_compat_r.
  - left. apply Rinv_0_lt_compat. lra.
  - apply Rmult_le_compat_l; lra.
Qed.

Lemma subsample_nonincr : forall g d, 0 < g -> nonincr d -> nonincr (subsample g d).
Proof.
  intros g d Hg Hd x y Hx H. unfold subsample.
  pose proof (exp_le 0 x Hx) as E0. rewrite exp_0 in E0.
  pose proof (exp_le x y H) as E.
  apply Rmult_le_compat_l; [lra|]. apply Hd.
  - rewrite <- ln_1. apply ln_le; [lra|].
    assert (0 <= (exp x - 1) / g) by (apply Rdiv_le_0_compat; lra). lra.
  - apply ln_le.
    + assert (0 <= (exp x - 1) / g) by (apply Rdiv_le_0_compat; lra). lra.
    + apply Rplus_le_compat_l. unfold Rdiv. apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; lra | lra].
Qed.

(** * The monotone cell argument (Liu et al. 2022 Thm 4.6, DESIGN.md):
    δ_A(a_i) <= δ_μ(a_{i+1}) on every cell of 0 = a_0 < ... < a_n gives
    δ_A <= δ_μ on [0, a_n] when both are non-increasing. *)
Fixpoint cells_ok (f g : R -> R) (a : R) (l : list R) : Prop :=
  match l with
  | nil => True
  | b :: t => a < b /\ f a <= g b /\ cells_ok f g b t
  end.

Lemma last_default : forall (c : R) l a b, last (c :: l) a = last (c :: l) b.
Proof.
  intros c l. revert c. induction l as [|d l IH]; intros c a b; [reflexivity|].
  change (last (d :: l) a = last (d :: l) b). apply IH.
Qed.

Lemma cells_head : forall f g, nonincr f -> nonincr g ->
  forall b l a, 0 <= a -> cells_ok f g a (b :: l) ->
  forall e, a <= e <= last (b :: l) a -> f e <= g e.
Proof.
  intros f g Hf Hg b l. revert b. induction l as [|c l IH]; intros b a Ha Hc e He.
  - simpl in Hc, He. destruct Hc as [Hab [Hfg _]].
    apply Rle_trans with (f a); [apply Hf; lra|]. apply Rle_trans with (g b); [exact Hfg|]. apply Hg; lra.
  - simpl in Hc. destruct Hc as [Hab [Hfg Hrest]].
    destruct (Rle_or_lt e b) as [Heb|Heb].
    + apply Rle_trans with (f a); [apply Hf; lra|]. apply Rle_trans with (g b); [exact Hfg|]. apply Hg; lra.
    + apply (IH c b); [lra | exact Hrest |]. split; [lra|].
      destruct He as [_ He]. rewrite (last_default c l b a). exact He.
Qed.

(** * δ_μ: the shift identity, derivatives, monotonicity (Liu et al. 2022 Thm 3.2) *)
Lemma phi_shift : forall mu e, mu <> 0 ->
  exp e * phi (- e / mu - mu / 2) = phi (- e / mu + mu / 2).
Proof.
  intros mu e Hmu. unfold phi, Rdiv. rewrite <- Rmult_assoc, <- exp_plus. f_equal. f_equal. field. exact Hmu.
Qed.

Lemma RInt_phi_side : forall x, ex_RInt phi 0 x /\ locally x (fun y => continuity_pt phi y).
Proof.
  intro x. split; [apply phi_ex_RInt|].
  apply filter_forall. intro y. apply continuity_pt_filterlim. apply phi_continuous.
Qed.

Lemma delta_mu_derive_eps : forall mu e, mu <> 0 ->
  is_derive (fun e => delta_mu mu e) e (- exp e * Phi (- e / mu - mu / 2)).
Proof.
  intros mu e Hmu. unfold delta_mu, Phi. auto_derive.
  - repeat split; try apply RInt_phi_side; auto.
  - change (fun x : R => phi x) with phi.
    replace (- e * / mu + - (mu / 2)) with (- e / mu - mu / 2) by (field; exact Hmu).
    replace (- e * / mu + mu / 2) with (- e / mu + mu / 2) by (field; exact Hmu).
    rewrite <- (phi_shift mu e Hmu). field. exact Hmu.
Qed.

Lemma delta_mu_derive_mu : forall mu e, mu <> 0 ->
  is_derive (fun m => delta_mu m e) mu (phi (- e / mu + mu / 2)).
Proof.
  intros mu e Hmu. unfold delta_mu, Phi. auto_derive.
  - repeat split; try apply RInt_phi_side; auto.
  -     replace (phi (- e * / mu + mu * / 2)) with (phi (- e / mu + mu / 2)) by (f_equal; field; exact Hmu).
    replace (phi (- e * / mu + - (mu * / 2))) with (phi (- e / mu - mu / 2)) by (f_equal; field; exact Hmu).
    rewrite <- (phi_shift mu e Hmu). field. exact Hmu.
Qed.

Ltac unplus := repeat match goal with
  | H : context [plus ?a ?b] |- _ => change (plus a b) with (a + b) in H
  | |- context [plus ?a ?b] => change (plus a b) with (a + b)
  | H : context [opp ?a] |- _ => change (opp a) with (- a) in H
  | |- context [opp ?a] => change (opp a) with (- a)
  end.

(** Φ > 0: from the Gaussian integral (the mass of φ on (-∞, 0] is 1/2). *)
Lemma RInt_phi_pos : forall a b, a < b -> 0 < RInt phi a b.
Proof.
  intros a b H. apply RInt_gt_0; [exact H | intros; apply phi_pos | intros; apply phi_continuous].
Qed.

Lemma RInt_phi_left_le : forall t, RInt phi (- t) 0 <= / 2.
Proof.
  intro t.
  apply (is_lim_le_loc (fun _ => RInt phi (- t) 0) (fun s => RInt phi (- s) 0) p_infty
          (RInt phi (- t) 0) (/ 2)); [| apply is_lim_const | apply gaussian_integral].
  exists t. intros s Hs.
  rewrite <- (RInt_Chasles phi (- s) (- t) 0); [| apply phi_ex_RInt | apply phi_ex_RInt].
  pose proof (RInt_phi_pos (- s) (- t) ltac:(lra)). unplus. lra.
Qed.

Lemma RInt_phi_left_lt : forall t, RInt phi (- t) 0 < / 2.
Proof.
  intro t. pose proof (RInt_phi_left_le (t + 1)).
  rewrite <- (RInt_Chasles phi (- (t + 1)) (- t) 0) in H; [| apply phi_ex_RInt | apply phi_ex_RInt].
  pose proof (RInt_phi_pos (- (t + 1)) (- t) ltac:(lra)). unplus. lra.
Qed.

Lemma Phi_pos : forall x, 0 < Phi x.
Proof.
  intro x. unfold Phi. destruct (Rle_or_lt 0 x) as [H|H].
  - destruct (Req_dec x 0) as [->|Hne]; [rewrite RInt_point; unfold zero; simpl; lra|].
    pose proof (RInt_phi_pos 0 x ltac:(lra)). lra.
  - rewrite <- (opp_RInt_swap phi x 0) by apply phi_ex_RInt.
    pose proof (RInt_phi_left_lt (- x)). rewrite Ropp_involutive in H0. unplus. lra.
Qed.

Lemma delta_mu_nonincr : forall mu, 0 < mu -> nonincr (delta_mu mu).
Proof.
  intros mu Hmu x y _ H. destruct (Req_dec x y) as [->|Hne]; [lra|].
  assert (D : forall u, is_derive (fun u => - delta_mu mu u) u (exp u * Phi (- u / mu - mu / 2))).
  { intro u. assert (Hm : mu <> 0) by lra. unfold delta_mu, Phi. auto_derive.
    - repeat split; try apply RInt_phi_side; auto.
    - replace (phi (- u * / mu + mu / 2)) with (phi (- u / mu + mu / 2)) by (f_equal; field; exact Hm).
      replace (phi (- u * / mu + - (mu / 2))) with (phi (- u / mu - mu / 2)) by (f_equal; field; exact Hm).
      replace (- u * / mu + - (mu / 2)) with (- u / mu - mu / 2) by (field; exact Hm).
      change (fun x0 : R => phi x0) with phi. rewrite <- (phi_shift mu u Hm). field. exact Hm. }
  assert (P : forall u, exp u * Phi (- u / mu - mu / 2) > 0).
  { intro u. apply Rmult_lt_0_compat; [apply exp_pos | apply Phi_pos]. }
  pose proof (incr_function_le _ m_infty p_infty _ (fun u _ _ => D u) (fun u _ _ => P u) x y
                ltac:(simpl; auto) ltac:(lra) ltac:(simpl; auto)). lra.
Qed.

Lemma delta_mu_lt_mu : forall m1 m2 e, 0 < m1 -> m1 < m2 -> delta_mu m1 e < delta_mu m2 e.
Proof.
  intros m1 m2 e H1 H12.
  assert (D : forall u : R, Rbar_le m1 u -> Rbar_le u p_infty -> is_derive (fun m => delta_mu m e) u (phi (- e / u + u / 2))).
  { intros u Hu _. change (m1 <= u) in Hu. apply delta_mu_derive_mu. lra. }
  exact (incr_function_le _ m1 p_infty _ D (fun u _ _ => phi_pos _) m1 m2
           ltac:(change (m1 <= m1); lra) H12 ltac:(simpl; auto)).
Qed.

(** Φ(x) -> 0 as x -> -∞ (the Gaussian integral), quantitatively. *)
Lemma Phi_small : forall eta, 0 < eta -> exists M, forall x, x < - M -> Phi x < eta.
Proof.
  intros eta Heta.
  pose proof (proj2 (is_lim_spec _ _ _) gaussian_integral (mkposreal eta Heta)) as [M HM].
  exists (Rmax M 0). intros x Hx.
  assert (Hx' : M < - x) by (pose proof (Rmax_l M 0); lra).
  specialize (HM (- x) Hx'). rewrite Ropp_involutive in HM. simpl in HM.
  unfold Phi. rewrite <- (opp_RInt_swap phi x 0) by apply phi_ex_RInt. unplus.
  apply Rabs_def2 in HM. lra.
Qed.

Lemma delta_mu_nonneg : forall mu e, 0 < mu -> 0 <= e -> 0 <= delta_mu mu e.
Proof.
  intros mu e Hmu He. destruct (Req_dec e 0) as [->|Hne].
  - unfold delta_mu. rewrite exp_0, Rmult_1_l. unfold Phi.
    replace (- 0 / mu + mu / 2) with (mu / 2) by (field; lra).
    replace (- 0 / mu - mu / 2) with (- (mu / 2)) by (field; lra).
    rewrite <- (RInt_Chasles phi 0 (- (mu / 2)) (mu / 2)) by apply phi_ex_RInt.
    rewrite <- (opp_RInt_swap phi (- (mu / 2)) 0) by apply phi_ex_RInt.
    pose proof (RInt_phi_pos (- (mu / 2)) (mu / 2) ltac:(lra)). unplus. lra.
  - destruct (Rle_or_lt 0 (delta_mu mu e)) as [H|H]; [exact H|]. exfalso.
    set (c := - delta_mu mu e).
    destruct (Phi_small (c * exp (- e))) as [M HM].
    { apply Rmult_lt_0_compat; [unfold c; lra | apply exp_pos]. }
    set (M' := Rmax M 1).
    set (m := Rmin (mu / 2) (e / (2 * M'))).
    assert (HM' : 1 <= M') by apply Rmax_r.
    assert (Hm0 : 0 < m).
    { unfold m, Rmin. destruct (Rle_dec _ _); [lra|]. apply Rdiv_lt_0_compat; lra. }
    assert (Hm1 : m < mu) by (unfold m; pose proof (Rmin_l (mu / 2) (e / (2 * M'))); lra).
    assert (Hm2 : m <= e / (2 * M')) by apply Rmin_r.
    pose proof (delta_mu_lt_mu m mu e Hm0 Hm1) as Hlt.
    assert (Hb : - e / m - m / 2 < - M).
    { assert (E0 : e / (2 * M') * (2 * M') = e) by (field; lra).
      assert (E1 : m * (2 * M') <= e) by nra.
      assert (E2 : e / m * m = e) by (field; lra).
      assert (E3 : 2 * M' <= e / m) by nra.
      pose proof (Rmax_l M 1). assert (M <= M') by (unfold M'; apply Rmax_l). lra. }
    specialize (HM _ Hb).
    unfold delta_mu in Hlt. pose proof (Phi_pos (- e / m + m / 2)).
    assert (exp e * Phi (- e / m - m / 2) < c).
    { apply (Rmult_lt_compat_l (exp e)) in HM; [|apply exp_pos].
      replace (exp e * (c * exp (- e))) with (c * (exp e * exp (- e))) in HM by ring.
      rewrite <- exp_plus, Rplus_opp_r, exp_0, Rmult_1_r in HM. exact HM. }
    unfold c in *. unfold delta_mu in *. lra.
Qed.

(** * From the head to all ε >= 0 *)
Lemma zero_tail : forall f g eps_max ez, nonincr f -> 0 <= ez <= eps_max -> f ez <= 0 ->
  (forall e, 0 <= e -> 0 <= g e) ->
  (forall e, 0 <= e <= eps_max -> f e <= g e) -> forall e, 0 <= e -> f e <= g e.
Proof.
  intros f g em ez Hf Hz Hfz Hg Hh e He. destruct (Rle_or_lt e em) as [H|H]; [apply Hh; lra|].
  apply Rle_trans with (f ez); [apply Hf; lra|]. apply Rle_trans with 0; [exact Hfz | apply Hg; lra].
Qed.

Lemma residual_tail : forall f g eps_max r, nonincr f -> 0 <= eps_max -> 0 <= r -> f eps_max <= r ->
  (forall e, 0 <= e -> 0 <= g e) ->
  (forall e, 0 <= e <= eps_max -> f e <= g e) -> forall e, 0 <= e -> f e <= g e + r.
Proof.
  intros f g em r Hf Hm Hr0 Hr Hg Hh e He. destruct (Rle_or_lt e em) as [H|H].
  - pose proof (Hh e (conj He H)). lra.
  - pose proof (Hg e He). pose proof (Hf em e Hm (Rlt_le _ _ H)). lra.
Qed.

(** * Cells: each cell proves δ_A <= δ_μ on [a, b]; together they cover [0, ε_h]. *)
Fixpoint cells_cover (f g : R -> R) (a : R) (l : list R) : Prop :=
  match l with
  | nil => True
  | b :: t => a < b /\ (forall x, a <= x <= b -> f x <= g x) /\ cells_cover f g b t
  end.

Lemma cells_cover_head : forall f g b l a, cells_cover f g a (b :: l) ->
  forall e, a <= e <= last (b :: l) a -> f e <= g e.
Proof.
  intros f g b l. revert b. induction l as [|c l IH]; intros b a Hc e He.
  - simpl in Hc, He. destruct Hc as [_ [H _]]. apply H. lra.
  - simpl in Hc. destruct Hc as [Hab [H Hrest]].
    destruct (Rle_or_lt e b) as [Heb|Heb]; [apply H; lra|].
    apply (IH c b Hrest). split; [lra|]. destruct He as [_ He]. rewrite (last_default c l b a). exact He.
Qed.

(** The first-order cell: δ_A(a) <= δ_μ(b) and both non-increasing. *)
Lemma first_order_cell : forall f g a b, nonincr f -> nonincr g -> 0 <= a -> f a <= g b ->
  forall x, a <= x <= b -> f x <= g x.
Proof.
  intros f g a b Hf Hg Ha H x Hx. apply Rle_trans with (f a); [apply Hf; lra|].
  apply Rle_trans with (g b); [exact H | apply Hg; lra].
Qed.

(** The second-order (mean value) cell: h = g - f with h(a) >= 0 and h' >= D on [a, b]. *)
Lemma mean_value_cell : forall h h' a b D, a < b ->
  (forall x, a <= x <= b -> is_derive h x (h' x)) -> (forall x, a <= x <= b -> D <= h' x) ->
  0 <= h a -> 0 <= h a + D * (b - a) -> forall x, a <= x <= b -> 0 <= h x.
Proof.
  intros h h' a b D Hab Hd HD H0 H1 x Hx.
  destruct (Req_dec x a) as [->|Hne]; [exact H0|].
  destruct (MVT_gen h a x h') as [c [Hc Heq]].
  - intros y Hy. rewrite Rmin_left, Rmax_right in Hy by lra. apply Hd. lra.
  - intros y Hy. rewrite Rmin_left, Rmax_right in Hy by lra. apply continuity_pt_filterlim.
    apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)). eexists. apply Hd. lra.
  - rewrite Rmin_left, Rmax_right in Hc by lra. pose proof (HD c ltac:(lra)).
    destruct (Rle_or_lt 0 D); nra.
Qed.

Lemma Phi_incr : forall x y, x <= y -> Phi x <= Phi y.
Proof.
  intros x y H. destruct (Req_dec x y) as [->|Hne]; [lra|]. unfold Phi.
  rewrite <- (RInt_Chasles phi 0 x y) by apply phi_ex_RInt.
  pose proof (RInt_phi_pos x y ltac:(lra)). unplus. lra.
Qed.

(** Laplace's second-order cell, on [a, b] with b <= s/β (where the profile is 1 - e^((ε - s/β)/2)):
    h' = -e^ε Φ(-ε/μ - μ/2) + e^((ε - s/β)/2)/2 >= e^((a - s/β)/2)/2 - e^b Φ(-a/μ - μ/2). *)
Lemma laplace_cell2 : forall bt s mu a b, 0 < bt -> 0 < mu -> a < b -> b <= s / bt ->
  laplace_delta bt s a <= delta_mu mu a ->
  0 <= delta_mu mu a - laplace_delta bt s a
       + (exp ((a - s / bt) / 2) / 2 - exp b * Phi (- a / mu - mu / 2)) * (b - a) ->
  forall x, a <= x <= b -> laplace_delta bt s x <= delta_mu mu x.
Proof.
  intros bt s mu a b Hb Hmu Hab Hbs H0 H1 x Hx.
  assert (Hl : forall y, y <= s / bt -> laplace_delta bt s y = 1 - exp ((y - s / bt) / 2)).
  { intros y Hy. unfold laplace_delta. apply Rmax_left.
    assert (exp ((y - s / bt) / 2) <= exp 0) by (apply exp_le; lra). rewrite exp_0 in H. lra. }
  assert (Hm : mu <> 0) by lra.
  set (h := fun y => delta_mu mu y - (1 - exp ((y - s / bt) / 2))).
  set (h' := fun y => - exp y * Phi (- y / mu - mu / 2) + exp ((y - s / bt) / 2) / 2).
  assert (K := mean_value_cell h h' a b (exp ((a - s / bt) / 2) / 2 - exp b * Phi (- a / mu - mu / 2)) Hab).
  assert (0 <= h x).
  { apply K; [| | unfold h; rewrite <- Hl by lra; lra | unfold h; rewrite <- Hl by lra; lra | exact Hx].
    - intros y _. unfold h, h'.
      assert (D1 := delta_mu_derive_eps mu y Hm).
      assert (D2 : is_derive (fun y => 1 - exp ((y - s / bt) / 2)) y (- (exp ((y - s / bt) / 2) / 2))).
      { auto_derive; [auto|]. replace ((y + - (s / bt)) * / 2) with ((y - s / bt) / 2) by (unfold Rdiv, Rminus; reflexivity).
        field. }
      assert (D := is_derive_minus _ _ _ _ _ D1 D2).
      replace (- exp y * Phi (- y / mu - mu / 2) + exp ((y - s / bt) / 2) / 2)
        with (minus (- exp y * Phi (- y / mu - mu / 2)) (- (exp ((y - s / bt) / 2) / 2)))
        by (unfold minus, plus, opp; simpl; field).
      exact D.
    - intros y Hy. unfold h'.
      assert (exp ((a - s / bt) / 2) <= exp ((y - s / bt) / 2)) by (apply exp_le; lra).
      assert (Phi (- y / mu - mu / 2) <= Phi (- a / mu - mu / 2)).
      { apply Phi_incr. unfold Rdiv. assert (a * / mu <= y * / mu) by (apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; lra | lra]). lra. }
      pose proof (Phi_pos (- y / mu - mu / 2)). pose proof (exp_le y b ltac:(lra)). pose proof (exp_pos y).
      nra. }
  unfold h in H. rewrite Hl by lra. lra.
Qed.

(** * Gaussian tails: Mills' ratio bounds (Gordon 1941), for deep tails where
    Φ(−t) = 1/2 − ∫₀ᵗ φ cancels catastrophically:
    φ(t) t/(t² + 1) ≤ Φ(−t) ≤ φ(t)/t for t > 0.  Both differences have a negative
    derivative (−φ(t)/t² and −2φ(t)/(t² + 1)²) and tend to 0 as t → ∞. *)

Lemma phi_opp : forall x, phi (- x) = phi x.
Proof. intro x. unfold phi. f_equal. f_equal. field. Qed.

Lemma phi_le_1 : forall x, phi x <= 1.
Proof.
  intro x. unfold phi.
  assert (E : exp (- x * x / 2) <= 1) by (rewrite <- exp_0; apply exp_le; nra).
  assert (S : 1 <= sqrt (2 * PI)) by interval.
  pose proof (exp_pos (- x * x / 2)).
  apply (Rmult_le_reg_r (sqrt (2 * PI))); [lra|].
  unfold Rdiv. rewrite Rmult_assoc, Rinv_l by lra. lra.
Qed.

Lemma decr_to_zero : forall g g' t0,
  (forall t, t0 < t -> is_derive g t (g' t)) -> (forall t, t0 < t -> g' t < 0) ->
  (forall t eta, t0 < t -> 0 < eta -> exists T, t < T /\ - eta < g T) ->
  forall t, t0 < t -> 0 <= g t.
Proof.
  intros g g' t0 Hd Hn Hl t Ht.
  destruct (Rle_or_lt 0 (g t)) as [H|H]; [exact H|]. exfalso.
  destruct (Hl t (- g t) Ht ltac:(lra)) as [T [HT HgT]].
  assert (D : forall u : R, Rbar_le t u -> Rbar_le u p_infty -> is_derive (fun u => - g u) u (- g' u)).
  { intros u Hu _. change (t <= u) in Hu. apply (is_derive_opp g). apply Hd. lra. }
  assert (P : forall u : R, Rbar_le t u -> Rbar_le u p_infty -> - g' u > 0).
  { intros u Hu _. change (t <= u) in Hu. pose proof (Hn u ltac:(lra)). lra. }
  pose proof (incr_function_le (fun u => - g u) t p_infty (fun u => - g' u) D P t T
                ltac:(change (t <= t); lra) HT ltac:(simpl; auto)). simpl in H0. lra.
Qed.

Lemma Phi_opp_derive : forall t, is_derive (fun t => Phi (- t)) t (- phi t).
Proof.
  intro t. unfold Phi. auto_derive.
  - repeat split; try apply RInt_phi_side; auto.
  - change (fun x : R => phi x) with phi. rewrite phi_opp. ring.
Qed.

Lemma mills_upper : forall t, 0 < t -> Phi (- t) <= phi t / t.
Proof.
  intros t Ht.
  assert (K : 0 <= phi t / t - Phi (- t)).
  { apply (decr_to_zero (fun t => phi t / t - Phi (- t)) (fun t => - phi t / (t * t)) 0).
    - intros u Hu.
      assert (D := is_derive_minus _ _ _ _ _
                    (is_derive_div phi (fun x => x) u _ _ (phi_derive u) (is_derive_id u) ltac:(lra))
                    (Phi_opp_derive u)).
      replace (- phi u / (u * u)) with
        (minus ((- u * phi u * u - phi u * one) / u ^ 2) (- phi u)).
      + exact D.
      + unfold minus, plus, opp, one; simpl. field. lra.
    - intros u Hu. pose proof (phi_pos u). apply Ropp_lt_cancel. rewrite Ropp_0.
      unfold Rdiv. rewrite Ropp_mult_distr_l, Ropp_involutive.
      apply Rmult_lt_0_compat; [lra|]. apply Rinv_0_lt_compat. nra.
    - intros u eta Hu Heta. destruct (Phi_small eta Heta) as [M HM].
      set (T := Rmax (u + 1) (Rmax M 0 + 1)).
      assert (T1 : u + 1 <= T) by apply Rmax_l.
      assert (T2 : Rmax M 0 + 1 <= T) by apply Rmax_r.
      pose proof (Rmax_l M 0). pose proof (Rmax_r M 0).
      exists T. split; [lra|].
      pose proof (HM (- T) ltac:(lra)).
      assert (0 < phi T / T) by (apply Rdiv_lt_0_compat; [apply phi_pos | lra]). lra.
    - exact Ht. }
  lra.
Qed.

Lemma mills_lower : forall t, 0 < t -> phi t * (t / (t * t + 1)) <= Phi (- t).
Proof.
  intros t Ht.
  assert (K : 0 <= Phi (- t) - phi t * (t / (t * t + 1))).
  { apply (decr_to_zero (fun t => Phi (- t) - phi t * (t / (t * t + 1)))
                        (fun t => - 2 * phi t / ((t * t + 1) * (t * t + 1))) 0).
    - intros u Hu.
      assert (Dq : is_derive (fun x => x / (x * x + 1)) u ((1 - u * u) / ((u * u + 1) * (u * u + 1)))).
      { auto_derive. nra. field. nra. }
      assert (D := is_derive_minus _ _ _ _ _ (Phi_opp_derive u)
                    (is_derive_mult phi (fun x => x / (x * x + 1)) u _ _ (phi_derive u) Dq ltac:(intros; apply Rmult_comm))).
      replace (- 2 * phi u / ((u * u + 1) * (u * u + 1))) with
        (minus (- phi u) (plus (mult (- u * phi u) (u / (u * u + 1))) (mult (phi u) ((1 - u * u) / ((u * u + 1) * (u * u + 1)))))).
      + exact D.
      + unfold minus, plus, opp, mult; simpl. field. nra.
    - intros u Hu. cbv beta. pose proof (phi_pos u).
      assert (0 < (u * u + 1) * (u * u + 1)) by nra.
      assert (0 < 2 * phi u / ((u * u + 1) * (u * u + 1))) by (apply Rdiv_lt_0_compat; lra).
      replace (- 2 * phi u / ((u * u + 1) * (u * u + 1))) with (- (2 * phi u / ((u * u + 1) * (u * u + 1)))) by (field; nra).
      lra.
    - intros u eta Hu Heta.
      set (T := Rmax (u + 1) (/ eta + 1)).
      assert (T1 : u + 1 <= T) by apply Rmax_l.
      assert (T2 : / eta + 1 <= T) by apply Rmax_r.
      pose proof (Rinv_0_lt_compat eta Heta).
      exists T. split; [lra|].
      pose proof (Phi_pos (- T)). pose proof (phi_le_1 T). pose proof (phi_pos T).
      assert (Q : T / (T * T + 1) < eta).
      { apply (Rmult_lt_reg_r (T * T + 1)); [nra|]. unfold Rdiv. rewrite Rmult_assoc, Rinv_l by nra.
        assert (eta * T > 1).
        { apply (Rmult_lt_reg_r (/ eta)); [lra|]. rewrite Rmult_1_l.
          replace (eta * T * / eta) with T by (field; lra). lra. }
        nra. }
      assert (0 < T / (T * T + 1)) by (apply Rdiv_lt_0_compat; nra).
      assert (phi T * (T / (T * T + 1)) <= T / (T * T + 1)) by (rewrite <- (Rmult_1_l (T / (T * T + 1))) at 2; apply Rmult_le_compat_r; lra).
      lra.
    - exact Ht. }
  lra.
Qed.

(** δ_μ(ε) in the tail (ε/μ > μ/2): with a = ε/μ − μ/2, b = ε/μ + μ/2 and e^ε φ(b) = φ(a),
    φ(a)(a/(a² + 1) − 1/b) ≤ δ_μ(ε) ≤ φ(a)(1/a − b/(b² + 1)) — no cancellation of 1/2's. *)
Lemma delta_mu_tail : forall mu e, 0 < mu -> mu / 2 < e / mu ->
  phi (e / mu - mu / 2) * ((e / mu - mu / 2) / ((e / mu - mu / 2) * (e / mu - mu / 2) + 1) - / (e / mu + mu / 2))
    <= delta_mu mu e <=
  phi (e / mu - mu / 2) * (/ (e / mu - mu / 2) - (e / mu + mu / 2) / ((e / mu + mu / 2) * (e / mu + mu / 2) + 1)).
Proof.
  intros mu e Hmu Ha.
  set (a := e / mu - mu / 2). set (b := e / mu + mu / 2).
  assert (Ha0 : 0 < a) by (unfold a; lra).
  assert (Hb0 : 0 < b) by (unfold b; lra).
  assert (Ea : - e / mu + mu / 2 = - a) by (unfold a; field; lra).
  assert (Eb : - e / mu - mu / 2 = - b) by (unfold b; field; lra).
  assert (S : exp e * phi b = phi a).
  { pose proof (phi_shift mu e ltac:(lra)) as H. rewrite Ea, Eb, !phi_opp in H. exact H. }
  unfold delta_mu. rewrite Ea, Eb.
  pose proof (mills_upper a Ha0). pose proof (mills_lower a Ha0).
  pose proof (mills_upper b Hb0). pose proof (mills_lower b Hb0).
  pose proof (exp_pos e) as He.
  assert (U : exp e * (phi b * (b / (b * b + 1))) <= exp e * Phi (- b)) by (apply Rmult_le_compat_l; lra).
  assert (L : exp e * Phi (- b) <= exp e * (phi b / b)) by (apply Rmult_le_compat_l; lra).
  replace (exp e * (phi b * (b / (b * b + 1)))) with (phi a * (b / (b * b + 1))) in U by (rewrite <- S; ring).
  replace (exp e * (phi b / b)) with (phi a / b) in L by (rewrite <- S; unfold Rdiv; ring).
  replace (phi a * (a / (a * a + 1) - / b)) with (phi a * (a / (a * a + 1)) - phi a / b) by (unfold Rdiv; ring).
  replace (phi a * (/ a - b / (b * b + 1))) with (phi a / a - phi a * (b / (b * b + 1))) by (unfold Rdiv; ring).
  split; lra.
Qed.

(** * The switch point of a refined profile (Liu et al. 2022 App. B) *)
Definition switch_q (d : R -> R) (x : R) : R := (1 - Rmin 1 (d x)) / (1 + exp x).
Definition switch_S (d d' : R -> R) (x : R) : R := d' x * (1 + exp x) + (1 - d x) * exp x.
Definition naive_ok (d d' : R -> R) : Prop :=
  (forall x, 0 < x -> 0 <= d x) /\ (forall x y, 0 < x -> x <= y -> d y <= d x) /\
  (forall x, 0 < x -> is_derive d x (d' x)).

Lemma one_exp_pos : forall x, 0 < 1 + exp x.
Proof. intro x. pose proof (exp_pos x). lra. Qed.

Lemma switch_q_nonneg : forall d x, 0 <= switch_q d x.
Proof.
  intros d x. unfold switch_q. apply Rdiv_le_0_compat; [| apply one_exp_pos].
  pose proof (Rmin_l 1 (d x)). lra.
Qed.

Lemma switch_q_lt1 : forall d x, d x < 1 -> switch_q d x = (1 - d x) / (1 + exp x).
Proof. intros d x H. unfold switch_q. rewrite Rmin_right by lra. reflexivity. Qed.

Lemma switch_q_ge1 : forall d x, 1 <= d x -> switch_q d x = 0.
Proof. intros d x H. unfold switch_q. rewrite Rmin_left by lra. unfold Rdiv. ring. Qed.

Lemma switch_q_le_tail : forall d x, 0 <= d x -> switch_q d x <= / (1 + exp x).
Proof.
  intros d x H. unfold switch_q. unfold Rdiv. rewrite <- (Rmult_1_l (/ (1 + exp x))) at 2.
  apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat, one_exp_pos|].
  unfold Rmin. destruct (Rle_dec 1 (d x)); lra.
Qed.

(** A cell where the naive profile is large: q < qs on (a, b] from one number. *)
Lemma switch_below : forall d d' a b qs x, naive_ok d d' -> 0 <= a -> 0 < qs ->
  (1 - d b) / (1 + exp a) < qs -> a <= x <= b -> 0 < x -> switch_q d x < qs.
Proof.
  intros d d' a b qs x [Hn [Hm _]] Ha Hq H Hx Hx0.
  destruct (Rle_or_lt 1 (d x)) as [H1|H1]; [rewrite switch_q_ge1 by exact H1; exact Hq|].
  rewrite switch_q_lt1 by exact H1.
  pose proof (Hm x b Hx0 (proj2 Hx)) as Hdb.
  pose proof (exp_le a x (proj1 Hx)). pose proof (one_exp_pos a). pose proof (one_exp_pos x).
  apply Rle_lt_trans with ((1 - d b) / (1 + exp a)); [|exact H].
  unfold Rdiv. apply Rmult_le_compat; try lra.
  - left. apply Rinv_0_lt_compat. lra.
  - apply Rinv_le_contravar; lra.
Qed.

(** Where d < 1, q' = - S / (1 + e^x)^2. *)
Lemma switch_q_derive : forall (d d' : R -> R) u, 0 < u -> is_derive d u (d' u) ->
  is_derive (fun y => (1 - d y) / (1 + exp y)) u (- switch_S d d' u / ((1 + exp u) * (1 + exp u))).
Proof.
  intros d d' u Hu D.
  assert (D1 : is_derive (fun y => 1 - d y) u (- d' u)).
  { assert (K := is_derive_minus (fun _ => 1) d u 0 (d' u) (is_derive_const 1 u) D).
    replace (- d' u) with (minus 0 (d' u)) by (unfold minus, plus, opp; simpl; ring). exact K. }
  assert (D2 : is_derive (fun y => 1 + exp y) u (exp u)) by (auto_derive; [auto | ring]).
  assert (K := is_derive_div _ _ u _ _ D1 D2 (Rgt_not_eq _ _ (one_exp_pos u))).
  replace (- switch_S d d' u / ((1 + exp u) * (1 + exp u))) with
    ((- d' u * (1 + exp u) - (1 - d u) * exp u) / (1 + exp u) ^ 2).
  - exact K.
  - unfold switch_S. pose proof (one_exp_pos u). field. lra.
Qed.

Lemma switch_incr : forall (d d' : R -> R) a b x, naive_ok d d' -> 0 < a ->
  (forall y, a <= y <= b -> switch_S d d' y < 0) -> a <= x < b -> d x < 1 -> switch_q d x < switch_q d b.
Proof.
  intros d d' a b x [Hn [Hm Hd]] Ha HS Hx H1.
  assert (Hlt : forall y, x <= y -> d y < 1) by (intros y Hy; pose proof (Hm x y ltac:(lra) Hy); lra).
  rewrite (switch_q_lt1 d x H1), (switch_q_lt1 d b (Hlt b ltac:(lra))).
  assert (D : forall u : R, Rbar_le x u -> Rbar_le u b -> is_derive (fun y => (1 - d y) / (1 + exp y)) u
                (- switch_S d d' u / ((1 + exp u) * (1 + exp u)))).
  { intros u Hu _. change (x <= u) in Hu. apply switch_q_derive; [lra | apply Hd; lra]. }
  assert (P : forall u : R, Rbar_le x u -> Rbar_le u b -> - switch_S d d' u / ((1 + exp u) * (1 + exp u)) > 0).
  { intros u Hu Hu'. change (x <= u) in Hu. change (u <= b) in Hu'. pose proof (HS u ltac:(lra)).
    pose proof (one_exp_pos u). apply Rdiv_lt_0_compat; nra. }
  exact (incr_function_le _ x b _ D P x b ltac:(change (x <= x); lra) ltac:(lra) ltac:(change (b <= b); lra)).
Qed.

Lemma switch_decr : forall (d d' : R -> R) a b x, naive_ok d d' -> 0 < a -> d a < 1 ->
  (forall y, a <= y <= b -> switch_S d d' y > 0) -> a < x <= b -> switch_q d x < switch_q d a.
Proof.
  intros d d' a b x [Hn [Hm Hd]] Ha H1 HS Hx.
  assert (Hlt : forall y, a <= y -> d y < 1) by (intros y Hy; pose proof (Hm a y ltac:(lra) Hy); lra).
  rewrite (switch_q_lt1 d x (Hlt x ltac:(lra))), (switch_q_lt1 d a H1).
  assert (D : forall u : R, Rbar_le a u -> Rbar_le u x -> is_derive (fun y => - ((1 - d y) / (1 + exp y))) u
                (- (- switch_S d d' u / ((1 + exp u) * (1 + exp u))))).
  { intros u Hu _. change (a <= u) in Hu. apply (is_derive_opp (fun y => (1 - d y) / (1 + exp y))).
    apply switch_q_derive; [lra | apply Hd; lra]. }
  assert (P : forall u : R, Rbar_le a u -> Rbar_le u x -> - (- switch_S d d' u / ((1 + exp u) * (1 + exp u))) > 0).
  { intros u Hu Hu'. change (a <= u) in Hu. change (u <= x) in Hu'. pose proof (HS u ltac:(lra)).
    pose proof (one_exp_pos u). unfold Rdiv. rewrite Ropp_mult_distr_l, Ropp_involutive.
    apply Rdiv_lt_0_compat; nra. }
  pose proof (incr_function_le _ a x _ D P a x ltac:(change (a <= a); lra) ltac:(lra) ltac:(change (x <= x); lra)).
  simpl in H. lra.
Qed.

(** Left of the bracket: q < q(r) on [a, r), cell by cell from the right. *)
Definition left_ok (d : R -> R) (a r : R) : Prop := forall x, a <= x < r -> 0 < x -> switch_q d x < switch_q d r.

Lemma switch_left_base : forall d r, left_ok d r r.
Proof. intros d r x Hx. lra. Qed.

Lemma switch_left_S : forall (d d' : R -> R) a b r, naive_ok d d' -> 0 < switch_q d r -> 0 < a -> a < b -> b <= r ->
  (forall y, a <= y <= b -> switch_S d d' y < 0) -> left_ok d b r -> left_ok d a r.
Proof.
  intros d d' a b r Hok Hr Ha Hab Hbr HS IH x Hx Hx0.
  destruct (Rle_or_lt b x) as [Hb|Hb]; [apply IH; lra|].
  destruct (Rle_or_lt 1 (d x)) as [H1|H1]; [rewrite switch_q_ge1 by exact H1; exact Hr|].
  pose proof (switch_incr d d' a b x Hok Ha HS ltac:(lra) H1).
  destruct (Req_dec b r) as [->|Hne]; [exact H|]. pose proof (IH b ltac:(lra) ltac:(lra)). lra.
Qed.

Lemma switch_left_B : forall (d d' : R -> R) a b r qs, naive_ok d d' -> 0 <= a -> 0 < qs -> qs <= switch_q d r ->
  (1 - d b) / (1 + exp a) < qs -> left_ok d b r -> left_ok d a r.
Proof.
  intros d d' a b r qs Hok Ha Hq Hqr H IH x Hx Hx0.
  destruct (Rle_or_lt b x) as [Hb|Hb]; [apply IH; lra|].
  pose proof (switch_below d d' a b qs x Hok Ha Hq H ltac:(lra) Hx0). lra.
Qed.

(** Right of the bracket: q < M on (r1, b], cell by cell from the left. *)
Definition right_ok (d : R -> R) (r1 b M : R) : Prop := forall x, r1 < x <= b -> switch_q d x < M.

Lemma switch_right_base : forall d r1 M, right_ok d r1 r1 M.
Proof. intros d r1 M x Hx. lra. Qed.

Lemma switch_right_S : forall (d d' : R -> R) r1 a b M, naive_ok d d' -> r1 <= a -> 0 < a -> d a < 1 ->
  (forall y, a <= y <= b -> switch_S d d' y > 0) -> switch_q d r1 <= M -> right_ok d r1 a M -> right_ok d r1 b M.
Proof.
  intros d d' r1 a b M Hok Hra Ha H1 HS HM IH x Hx.
  destruct (Rle_or_lt x a) as [Hxa|Hxa]; [apply IH; lra|].
  pose proof (switch_decr d d' a b x Hok Ha H1 HS ltac:(lra)).
  destruct (Req_dec a r1) as [->|Hne]; [lra|]. pose proof (IH a ltac:(lra)). lra.
Qed.

Lemma switch_right_B : forall (d d' : R -> R) r1 a b M qs, naive_ok d d' -> 0 <= r1 -> 0 <= a -> 0 < qs -> qs <= M ->
  (1 - d b) / (1 + exp a) < qs -> right_ok d r1 a M -> right_ok d r1 b M.
Proof.
  intros d d' r1 a b M qs Hok Hr1 Ha Hq HqM H IH x Hx.
  destruct (Rle_or_lt x a) as [Hxa|Hxa]; [apply IH; lra|].
  pose proof (switch_below d d' a b qs x Hok Ha Hq H ltac:(lra) ltac:(lra)). lra.
Qed.

Lemma switch_right_tail : forall (d d' : R -> R) r1 T M qs, naive_ok d d' -> 0 <= r1 -> 0 < qs -> qs <= M ->
  / (1 + exp T) < qs -> right_ok d r1 T M -> forall x, r1 < x -> switch_q d x < M.
Proof.
  intros d d' r1 T M qs [Hn Hok] Hr1 Hq HqM HT IH x Hx.
  destruct (Rle_or_lt x T) as [HxT|HxT]; [apply IH; lra|].
  pose proof (switch_q_le_tail d x (Hn x ltac:(lra))).
  assert (/ (1 + exp x) <= / (1 + exp T)).
  { apply Rinv_le_contravar; [apply one_exp_pos|]. pose proof (exp_le T x ltac:(lra)). lra. }
  lra.
Qed.

(** Every maximiser of q on (0, ∞) lies in the bracket [r0, r1]. *)
Theorem switch_bracket : forall d r0 r1, 0 < r0 -> 0 < r1 -> left_ok d 0 r0 ->
  (forall x, r1 < x -> switch_q d x < Rmax (switch_q d r0) (switch_q d r1)) ->
  forall x, 0 < x -> (forall y, 0 < y -> switch_q d y <= switch_q d x) -> r0 <= x <= r1.
Proof.
  intros d r0 r1 H0 H1 L R x Hx Hmax. split.
  - destruct (Rle_or_lt r0 x) as [H|H]; [exact H|]. exfalso.
    pose proof (L x ltac:(lra) Hx). pose proof (Hmax r0 H0). lra.
  - destruct (Rle_or_lt x r1) as [H|H]; [exact H|]. exfalso.
    pose proof (R x H). pose proof (Hmax r0 H0). pose proof (Hmax r1 H1).
    unfold Rmax in *. destruct (Rle_dec _ _); lra.
Qed.

(** The naive profiles of the σ-formulas (Liu et al. 2022 §2): sgd, σ = A ε⁻¹ √log(B/δ), is
    δ̂ = B exp(−(cε)²) with c = σ/A; icea, m = 10 log(n/(εδ)), is δ̂ = K/ε with K = n e^{−m/10}. *)
Definition sgd_naive (B c x : R) : R := B * exp (- (c * x * (c * x))).
Definition sgd_dnaive (B c x : R) : R := - 2 * c * c * x * (B * exp (- (c * x * (c * x)))).
Definition icea_naive (K x : R) : R := K / x.
Definition icea_dnaive (K x : R) : R := - K / (x * x).

Lemma sgd_ok : forall B c, 0 < B -> 0 < c -> naive_ok (sgd_naive B c) (sgd_dnaive B c).
Proof.
  intros B c HB Hc. unfold sgd_naive, sgd_dnaive. split; [|split].
  - intros x _. pose proof (exp_pos (- (c * x * (c * x)))). nra.
  - intros x y Hx Hxy. apply Rmult_le_compat_l; [lra|]. apply exp_le.
    assert (c * x <= c * y) by (apply Rmult_le_compat_l; lra). assert (0 < c * x) by nra. nra.
  - intros x _. auto_derive; [auto | ring].
Qed.

Lemma icea_ok : forall K, 0 < K -> naive_ok (icea_naive K) (icea_dnaive K).
Proof.
  intros K HK. unfold icea_naive, icea_dnaive. split; [|split].
  - intros x Hx. apply Rdiv_le_0_compat; lra.
  - intros x y Hx Hxy. unfold Rdiv. apply Rmult_le_compat_l; [lra|]. apply Rinv_le_contravar; lra.
  - intros x Hx. auto_derive; [lra | field; lra].
Qed.

(** A number below q(r): qs <= (1 - d r)/(1 + e^r) with d r < 1. *)
Lemma switch_q_above : forall d r qs, d r < 1 -> qs <= (1 - d r) / (1 + exp r) -> qs <= switch_q d r.
Proof. intros d r qs H1 H. rewrite switch_q_lt1 by exact H1. exact H. Qed.

(** q attains its maximum: on [r0, r1] (where δ̂ < 1) q is (1 − δ̂)/(1 + eˣ), continuous. *)
Theorem switch_exists : forall (d d' : R -> R) r0 r1, naive_ok d d' -> 0 < r0 -> r0 <= r1 -> d r0 < 1 ->
  left_ok d 0 r0 -> (forall x, r1 < x -> switch_q d x < Rmax (switch_q d r0) (switch_q d r1)) ->
  exists x, 0 < x /\ forall y, 0 < y -> switch_q d y <= switch_q d x.
Proof.
  intros d d' r0 r1 Hok H0 H01 Hd L R. destruct Hok as [Hn [Hm Hd']].
  assert (Hlt : forall y, r0 <= y -> d y < 1) by (intros y Hy; pose proof (Hm r0 y H0 Hy); lra).
  set (g := fun y => (1 - d y) / (1 + exp y)).
  assert (C : forall c, r0 <= c <= r1 -> continuity_pt g c).
  { intros c Hc. apply continuity_pt_filterlim.
    apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)). eexists.
    apply (switch_q_derive d d' c); [lra | apply Hd'; lra]. }
  destruct (continuity_ab_maj g r0 r1 H01 C) as [m [Hmax Hm01]].
  assert (Q : forall y, r0 <= y <= r1 -> switch_q d y = g y) by (intros y Hy; apply switch_q_lt1, Hlt; lra).
  exists m. split; [lra|]. intros y Hy.
  rewrite (Q m Hm01).
  destruct (Rlt_or_le y r0) as [Hy0|Hy0].
  - pose proof (L y ltac:(lra) Hy). pose proof (Hmax r0 ltac:(lra)). rewrite (Q r0 ltac:(lra)) in H. lra.
  - destruct (Rle_or_lt y r1) as [Hy1|Hy1].
    + rewrite (Q y ltac:(lra)). apply Hmax. lra.
    + pose proof (R y Hy1). pose proof (Hmax r0 ltac:(lra)). pose proof (Hmax r1 ltac:(lra)).
      rewrite (Q r0 ltac:(lra)) in H. rewrite (Q r1 ltac:(lra)) in H.
      unfold Rmax in H. destruct (Rle_dec _ _); lra.
Qed.
